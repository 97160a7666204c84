"""Session 54: the warp-specialised ping-pong forward against ``hopper``'s own kernel on
D=64 rows of full blocks, measured again on today's tree.

    PYTHONPATH=. python benchmarks/sessions/s54_pingpong_d64_ab.py [--rounds 2]

Why. Session 23 (NOTES v25) found the persistent ping-pong kernel 13-24% slower than the
own kernel on D=64's short rows, and it has not been set against it there since; it has
since gained the walk handed over through shared memory, a second Q buffer a warp group
(the next item's Q loads under the current one's epilogue) and a filled last wave. Calls
2-5 of this session found the own kernel's row boundaries costly (85-90% of an idle cycle
there is lost) but found no cheap way to shorten them; the ping-pong kernel's loader
issues the next item's copies while the warp groups finish the current one.

``hopper_pingpong.D64_MASKED_ROW_KEYS`` = 0 sends every D=64 call to the ping-pong
kernel (rows of full blocks count 0 masked keys); its value on the tree keeps them on
the own kernel.

Prediction: the own kernel still faster on dense and 7+-tile rows; `local(1)` within 5%
either way.

Result (call 6, log ``benchmarks/results/NVIDIA-H200-pingpong-d64-s54-call6.log``; best of
two, ping-pong against own): `local(1)` -4.6%, `local(3)` -9.6%, `butterfly` -7.6%,
random+global -3.1%, dense -7.8%; B=4, N=4K `local(1)` -6.1%, `local(3)` -9.2%. The own
kernel stays; the ping-pong kernel's deficit is smallest on the shortest rows (NOTES
v55).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_pingpong

if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly",
                                    "local(1) | global(1) | random(2)", "dense")]
    ab.knob_ab_main(hopper_pingpong, "D64_MASKED_ROW_KEYS",
                    {"own": hopper_pingpong.D64_MASKED_ROW_KEYS, "pingpong": 0}, cases,
                    forward=True, shapes={(1, 16, 16384): cases,
                                          (4, 16, 4096): cases[:2]})
