"""Session 51: do the two programs an SM runs in ``hopper``'s own D=64 forward reach their
prologues and epilogues together on short rows (``hopper.FIRST_WAVE_SKEW_NS``)?

    PYTHONPATH=. python benchmarks/sessions/s51_skew_ab.py [--rounds 2]

Why. The D=64 forward runs two programs an SM. Its short rows keep 67% (`local(1)`, three
tiles a row) to 83% (`local(3)`, seven) of the dense TFLOP/s (NOTES v52): about 1.5
tiles' time of fixed cost an item, though a second program could hide one program's
prologue (Q's load, the first tiles' loads and scores) and epilogue. A guess: programs of
equal rows that start together on an SM share its issue slots evenly, finish together,
and their successors start together too, so that both wait on their first loads at once,
wave after wave.

What. The second program of each SM in the first wave (launch order: ids from the SM
count to twice it) waits 4 us before it starts; from then on the two slots of an SM run
their items half an item apart. Forward, bf16, B=1, H=16, N=16,384, from CUDA graphs,
outputs compared with the baseline's.

Prediction, if the guess holds: `local(1)` 5-15% faster, `local(3)` and `butterfly` 3-8%,
dense within 0.5% (128 tiles a row). If not: every case within 1%.

Result (call 6, on commit 019489f, which had the knob; log
``benchmarks/results/NVIDIA-H200-skew-ab-s51-call6.log``), best of two, together ->
skewed, ms, outputs bit for bit the same: `local(1)` 0.081 -> 0.082 (-0.9%), `local(3)`
0.146 -> 0.147 (-0.6%), dense 2.273 -> 2.265 (+0.3%), `butterfly` 0.165 -> 0.165 (-0.3%).
Refuted: the skew paid part of its own wait and gained nothing, so co-resident programs
do not stay in step, or being in step does not cost. The knob was removed; the kernel is
the one before it (NOTES v52).
"""

import torch

from benchmarks.sessions import ab
from sparseflash.kernels import hopper


def main():
    hopper.FIRST_WAVE_SMS = torch.cuda.get_device_properties(0).multi_processor_count
    ab.knob_ab_main(hopper, "FIRST_WAVE_SKEW_NS", {"together": 0, "skewed 4us": 4000}, [],
                    forward=True,
                    shapes={(1, 16, 16384): [(64, "local(1)", 0.0), (64, "local(3)", 0.0),
                                             (64, "dense", 0.0), (64, "butterfly", 0.0)]})


if __name__ == "__main__":
    main()
