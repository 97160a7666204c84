"""Session 46: ``hopper``'s own D=64 forward filling its last wave
(``hopper.FILL_LAST_WAVE``) against whole programs, from CUDA graphs; and the fused
backward's fill again at the README's shape, its chunk arithmetic now read anew after the
tile loop.

    python benchmarks/sessions/s46_own_fill_ab.py [--rounds 2]

The D=64 forward runs two programs an SM (128 registers a thread, 112 KB of shared
memory). ``schedule.fill_last_wave(..., shared=True)`` models that: two programs share
an SM's rate, one alone gets 75% of it (NOTES v18: the dense forward took 3.05 ms at one
program an SM, 2.28 at two). Its plans on 132 SMs, 128 blocks a row: one head of 16K
tokens (128 programs, one an SM) (0, 2), 24% sooner in the model; three heads (384
programs, 1.45 waves of 264) (2, 2), 25% sooner; one head of 17,920 tokens (140) (0, 3),
32% sooner; 16 heads (2,048, 7.8 waves) no plan. Prediction: 15-25% less forward time at
the three small shapes (the model less the merge and the chunks' extra starts).

The fused backward's fill (session 45: nothing measurable at D=64 on the README's shape)
now derives its coordinates anew after the tile loop (``hopper._program_id_again``), where
the compiler had kept the first derivation's values through the loop: ptxas of Triton 3.6
spills nothing in its D=64 fill variant (8 bytes before; the whole-column kernel, unchanged,
spills 16 bytes across the loop). Prediction: 0-1% off the dense D=64 backward.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper, hopper_fused


def main():
    ab.knob_ab_main(hopper, "FILL_LAST_WAVE", {"whole": False, "fill": True}, [],
                    forward=True,
                    shapes={(1, 1, 16384): [(64, "dense", 0.0)],
                            (1, 3, 16384): [(64, "dense", 0.0)],
                            (1, 1, 17920): [(64, "dense", 0.0)]})
    print("fused backward, FILL_LAST_WAVE", flush=True)
    ab.knob_ab_main(hopper_fused, "FILL_LAST_WAVE", {"whole": False, "fill": True},
                    [(64, "dense", 0.0)])


if __name__ == "__main__":
    main()
