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

Result (call 1, log ``benchmarks/results/NVIDIA-H200-lazy-d128-ab-s56-call1.log``; best
of three, exact -> lazy, ms): dense 3.347 -> 3.391 (-1.3%), ``causal`` 1.719 -> 1.689
(+1.8%), ``local(3)`` 0.204 -> 0.212 (-3.6%), ``butterfly`` 0.238 -> 0.239 (-0.4%),
random+global 0.215 -> 0.219 (-2.0%); at B=4, N=4K dense -0.6%, ``causal`` 0.492 -> 0.486
(+1.3%). Outputs within bf16's rounding (O 1.1e-3 of the largest entry, LSE ~1e-7). Kept
on layouts with partial blocks only (NOTES v57).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_pingpong

PATTERNS = ("dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)")

if __name__ == "__main__":
    cases = [(128, p, 0.0) for p in PATTERNS]
    ab.knob_ab_main(hopper_pingpong, "LAZY_RESCALE", {"exact": False, "lazy": True}, cases,
                    forward=True, shapes={(1, 16, 16384): cases, (4, 16, 4096): cases[:2]})
