"""Session 45: the last-wave fill (``hopper_fused.FILL_LAST_WAVE``) against whole columns
from CUDA graphs at shapes other than the README's, and the README's again.

    python benchmarks/sessions/s45_fill_shapes.py [--rounds 3]

One head of 140 dense columns (N = 17,920, block 128) is 1.06 waves on 132 SMs: whole,
the grid takes two waves' time; ``schedule.fill_last_wave`` plans (0, 4), every column
in four chunks, and its simulation ends the grid 36% sooner (prediction: the backward
25-35% faster, less the split sums and the delta and cast passes). The README's shape
(B=1, 16 heads, N=16K) again at D=64 without dropout, where call 2's A/B
(``s45_fill_ab.py``) read nothing between run-to-run swings of up to 5%.

It ran (call 3) with the loop over shapes written out here; that loop is now
``ab.knob_ab_main``'s ``shapes``, the same calls in the same order.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    ab.knob_ab_main(hopper_fused, "FILL_LAST_WAVE", {"whole": False, "fill": True}, [],
                    shapes={(1, 1, 17920): [(64, "dense", 0.0), (128, "dense", 0.0)],
                            (1, 16, 16384): [(64, "dense", 0.0)]}, rounds=3)


if __name__ == "__main__":
    main()
