"""Session 56: the lazy rescale (FlashAttention-4's; ``hopper.LAZY_RESCALE``) in the D=128
ping-pong forward (``hopper_pingpong.LAZY_RESCALE``) against the exact rescale.

    PYTHONPATH=. python benchmarks/sessions/s56_lazy_d128_ab.py [--rounds 3]

Why. At D=64 the lazy form made ``causal`` 2.4-3.4% faster in ``hopper``'s own forward
and left layouts of full blocks within the runs' spread (NOTES v56). At D=128 a warp
group's softmax runs under the other warp group's products, and a round's exact rescale
is 64 multiplications a thread of its ~500 instructions. Prediction: where the softmax is
hidden under the products (dense, long rows) 0-2%; ``causal`` (its partial tiles' mask
and the -inf guard lengthen the softmax) 1-3%; short rows (``local(3)``, ``butterfly``,
random+global) within +-1%, their time set at the items' boundaries.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_pingpong

PATTERNS = ("dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)")

if __name__ == "__main__":
    cases = [(128, p, 0.0) for p in PATTERNS]
    ab.knob_ab_main(hopper_pingpong, "LAZY_RESCALE", {"exact": False, "lazy": True}, cases,
                    forward=True, shapes={(1, 16, 16384): cases, (4, 16, 4096): cases[:2]})
