"""Session 57: the lazy rescale (``hopper.LAZY_RESCALE``) in the D=64 ping-pong forward,
which runs every D=64 call with dropout (``hopper_pingpong.LAZY_HEAD_DIMS`` (64, 128)
against (128,)).

    PYTHONPATH=. python benchmarks/sessions/s57_lazy_d64_dropout_ab.py [--rounds 2]

Why. At D=128 the lazy rescale made ``causal`` forwards with dropout 1.4-1.8% faster
(``s57_lazy_dropout_ab.py``, NOTES v58); at D=64 the ping-pong kernel takes calls with
dropout and carries P in float32 on partial blocks too. Compiled for sm_90 with Triton 3.6
it spills nothing either way, and its SASS tests two registers a test. A warp group's
accumulator is 64 x 64 here: 32 multiplications a thread a round, half D=128's. Prediction:
``causal`` with dropout 0.1 at 16K and 4K 0.5-1.5% faster.

Result (call 5, log ``benchmarks/results/NVIDIA-H200-lazy-d64-dropout-ab-s57-call5.log``;
best of two, exact -> lazy, ms): ``causal`` 2.293 -> 2.291 at 16K (+0.1%), 0.703 -> 0.710
at 4K (-1.0%, in both rounds). O within 7.7e-4 of its largest entry. Not kept (NOTES v58).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_pingpong

if __name__ == "__main__":
    cases = [(64, "causal", 0.1)]
    ab.knob_ab_main(hopper_pingpong, "LAZY_HEAD_DIMS", {"exact": (128,), "lazy": (64, 128)},
                    cases, forward=True, shapes={(1, 16, 16384): cases, (4, 16, 4096): cases})
