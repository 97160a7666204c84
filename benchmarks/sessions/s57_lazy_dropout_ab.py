"""Session 57: the lazy rescale (``hopper.LAZY_RESCALE``) in the D=128 ping-pong forward on
calls with dropout (``hopper_pingpong.LAZY_WITH_DROPOUT``) against the exact rescale.

    PYTHONPATH=. python benchmarks/sessions/s57_lazy_dropout_ab.py [--rounds 3]

Why. Session 56 took the lazy rescale at D=128 on long rows with partial blocks
(``causal`` forwards 1.3-1.9% faster) but left calls with dropout exact, untimed (NOTES
v57). With dropout a trip also draws the tile's keep mask and applies it, so the rescale's
64 multiplications a thread are a smaller share of the trip. Compiled for sm_90 with
Triton 3.6 the lazy form spills what the exact one spills (144 bytes, as every D=128
dropout forward), and its SASS tests each thread's two rows (two registers a test).
Prediction: ``causal`` with dropout 0.1 at 16K and at 4K 0.5-1.5% faster; outputs within
bf16's rounding of the exact kernel's (the keep masks are the same draws).

Result (call 3, log ``benchmarks/results/NVIDIA-H200-lazy-dropout-ab-s57-call3.log``; best
of three, exact -> lazy, ms): ``causal`` 2.963 -> 2.910 at 16K (+1.8%; means of six runs
3.000 -> 2.964), 0.901 -> 0.889 at 4K (+1.4%); ``bigbird & causal`` (rows under the row
gate: the same kernel) 0.353 -> 0.354. O within 9.7e-4 of its largest entry, LSE 1.3e-7.
Kept: ``LAZY_WITH_DROPOUT = True`` (NOTES v58).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_pingpong

if __name__ == "__main__":
    cases = [(128, "causal", 0.1), (128, "bigbird & causal", 0.1)]
    ab.knob_ab_main(hopper_pingpong, "LAZY_WITH_DROPOUT", {"exact": False, "lazy": True},
                    cases, forward=True,
                    shapes={(1, 16, 16384): cases, (4, 16, 4096): cases[:1]})
