"""Session 55: the lazy rescale where it is kept (``hopper.lazy_rescale``: the D=64 own
forward on layouts with partial blocks, which carries P in float32) against the exact
rescale, on the final tree.

    PYTHONPATH=. python benchmarks/sessions/s55_lazy_causal_ab.py [--rounds 3]

Why. Calls 1 and 2 (``s55_lazy_rescale_ab.py``) found the lazy form 2.7-3.8% faster on
``causal`` and -0.7% to +0.9% elsewhere; the tree now takes it on the layouts of the
first kind only. Prediction: ``causal`` 2.5-4% faster at both shapes, ``bigbird & causal``
(partial diagonal blocks among full ones) 0-3%.

Result: see NOTES v56.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper

if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("causal", "bigbird & causal", "local(3) & causal")]
    ab.knob_ab_main(hopper, "LAZY_RESCALE", {"exact": False, "lazy": True}, cases,
                    forward=True, shapes={(1, 16, 16384): cases, (4, 16, 4096): cases[:1]})
