"""Session 55: the lazy rescale where it is kept (``hopper.lazy_rescale``: the D=64 own
forward on layouts with partial blocks, which carries P in float32) against the exact
rescale, on the final tree.

    PYTHONPATH=. python benchmarks/sessions/s55_lazy_causal_ab.py [--rounds 3]

Why. Calls 1 and 2 (``s55_lazy_rescale_ab.py``) found the lazy form 2.7-3.8% faster on
``causal`` and -0.7% to +0.9% elsewhere; the tree now takes it on the layouts of the
first kind only. Prediction: ``causal`` 2.5-4% faster at both shapes, ``bigbird & causal``
(partial diagonal blocks among full ones) 0-3%.

Ran (call 3) on commit b283b1d, where every D=64 layout with partial blocks took the lazy
form; the final tree takes it only on rows of ``hopper.LAZY_RESCALE_ROW_KEYS`` (2,048) keys
or more, which leaves out ``bigbird & causal`` (5 blocks a row) and ``local(3) & causal``
(3) here: on it their two values run the same kernel.

Result (best of three, exact -> lazy, ms; log
``benchmarks/results/NVIDIA-H200-lazy-causal-ab-s55-call3.log``): ``causal`` 1.225 ->
1.184 (+3.4%), at B=4, N=4K 0.335 -> 0.328 (+2.4%); ``bigbird & causal`` 0.127 -> 0.126
(+0.8%); ``local(3) & causal`` 0.103 -> 0.104 (-1.1%, slower in all three rounds). Outputs
within bf16's rounding of the exact kernel's (O 8.6e-4 to 1.7e-3 of its largest entry,
LSE 1e-7). Hence the row-length gate (NOTES v56).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper

if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("causal", "bigbird & causal", "local(3) & causal")]
    ab.knob_ab_main(hopper, "LAZY_RESCALE", {"exact": False, "lazy": True}, cases,
                    forward=True, shapes={(1, 16, 16384): cases, (4, 16, 4096): cases[:1]})
