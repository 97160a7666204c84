"""Session 56: the D=128 ping-pong forward's lazy rescale (``hopper_pingpong.LAZY_RESCALE``)
on ``causal`` at 64K tokens, against the exact rescale.

    PYTHONPATH=. python benchmarks/sessions/s56_lazy_d128_long_ab.py [--rounds 3]

Why. Calls 1 and 2 (``s56_lazy_d128_ab.py``, ``s56_lazy_d128_rows_ab.py``) found it
1.3-1.9% faster on ``causal`` at 4K and 16K tokens; the tree takes it there. Prediction:
at 64K (rows of 256 blocks on average) 1.5-2.5%, the rows' ends a smaller share.

Result (call 3, log ``benchmarks/results/NVIDIA-H200-lazy-d128-long-ab-s56-call3.log``):
27.663 -> 27.297 ms best of three (+1.3%); the six runs' means 27.97 -> 27.60 (NOTES v57).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_pingpong

if __name__ == "__main__":
    cases = [(128, "causal", 0.0)]
    ab.knob_ab_main(hopper_pingpong, "LAZY_RESCALE", {"exact": False, "lazy": True}, cases,
                    forward=True, shapes={(1, 16, 65536): cases})
