"""Session 56: the D=128 ping-pong forward's lazy rescale (``hopper_pingpong.LAZY_RESCALE``)
by row length, on layouts with partial blocks: forced on rows of any length
(``hopper.LAZY_RESCALE_ROW_KEYS`` = 0) against the exact rescale.

    PYTHONPATH=. python benchmarks/sessions/s56_lazy_d128_rows_ab.py [--rounds 3]

Why. Call 1 (``s56_lazy_d128_ab.py``) found the lazy form 1.3-1.8% faster on ``causal``
and 0.4-3.6% slower on layouts of full blocks; the tree now takes it at D=128 as at
D=64, on layouts with partial blocks whose rows average 2,048 keys or more. At D=64 short
rows with partial blocks lost 1.1% (``local(3) & causal``, NOTES v56). Prediction:
``causal`` 1-2% faster as in call 1; ``bigbird & causal`` (5 blocks a row) and
``local(3) & causal`` (3) within 1% either way, or slower, which keeps the gate.

Result (call 2, log ``benchmarks/results/NVIDIA-H200-lazy-d128-rows-ab-s56-call2.log``;
best of three, exact -> lazy, ms): ``causal`` 1.713 -> 1.680 (+1.9%), ``bigbird & causal``
0.183 -> 0.181 (+0.6%), ``local(3) & causal`` 0.150 -> 0.149 (+0.7%); the short rows'
rounds overlap (0.181-0.186 against 0.183-0.185; 0.149-0.151 against 0.150-0.153). The
gate stays, as at D=64 (NOTES v57).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper, hopper_pingpong

PATTERNS = ("causal", "bigbird & causal", "local(3) & causal")
ROW_KEYS = hopper.LAZY_RESCALE_ROW_KEYS


def setup(lazy: bool):
    """The variant's setup: the lazy rescale on rows of any length, or the exact one."""
    def apply():
        hopper_pingpong.LAZY_RESCALE = lazy
        hopper.LAZY_RESCALE_ROW_KEYS = 0 if lazy else ROW_KEYS
    return apply


def variants():
    launch = ab.kernels_of(None)
    return {"exact": (launch, setup(False)), "lazy": (launch, setup(True))}


if __name__ == "__main__":
    ab.forward_ab_main(variants, {(1, 16, 16384): [(128, p, 0.0) for p in PATTERNS]})
