"""Session 54: ``hopper``'s own D=64 forward with two K/V buffers against its three.

    PYTHONPATH=. python benchmarks/sessions/s54_stages_ab.py [--rounds 2]

Why. A persistent form of the own kernel that loads its next row's Q a whole row ahead
needs a second Q buffer (16 KB) that three K/V buffers leave no room for at two programs
an SM (112 KB a program); with two K/V buffers (80 KB) the ring's slot and phase are a
mask and a shift, where session 53's persistent kernel paid a division by three on every
trip. Whether the loop keeps its pace on a two-deep ring decides whether that design is
worth building.

Prediction: dense within 2% (a trip, ~3,400 cycles, is longer than a copy's ~2,000);
short rows within 1%.

Result (call 7, log ``benchmarks/results/NVIDIA-H200-stages-ab-s54-call7.log``; best of two,
two buffers against three): `local(1)` -1.4%, `local(3)` -1.6%, `butterfly` -1.2%,
random+global -1.6%, dense -2.8%, `causal` -2.2%; B=4, N=4K `local(1)` -1.3%, `local(3)`
-2.0%. Outputs bit for bit the same. A persistent kernel on a two-deep ring would start
1-3% behind (NOTES v55).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper

if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly",
                                    "local(1) | global(1) | random(2)", "dense", "causal")]
    ab.knob_ab_main(hopper, "STAGES", {"three": hopper.STAGES, "two": 2}, cases,
                    forward=True, shapes={(1, 16, 16384): cases, (4, 16, 4096): cases[:2]})
