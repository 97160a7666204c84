"""Session 45: the fused backward filling its last wave (``hopper_fused.FILL_LAST_WAVE``)
against its grid of whole columns, from CUDA graphs, at the README's shape (B=1, 16 heads,
N=16K, block 128: 2,048 dense columns, 15.5 waves on 132 SMs).

    python benchmarks/sessions/s45_fill_ab.py [--rounds 2]

With the fill, ``schedule.fill_last_wave`` plans (15, 3) there: the last head's 128
columns run as three chunks each after the other 1,920 columns, on a 1-D grid, and their
dK and dV partial sums are added by the split-sum kernel afterwards. Its simulation
(each program started on the first free SM, a program's start and stores worth one
block) ends the grid at 15.7 waves' time against 16 (2.0% sooner). Session 32 measured
the last wave at ~1.5% of the dense backward (at 33 and 66 heads, whole waves, both ours
and cuDNN's ran ~1.5% faster per FLOP; NOTES v34). Prediction: 1-1.5% off the dense
backward at both head dims, with and without dropout. The fill variant's kernel (its
chunk arithmetic before and after the tile loop) is 344 instructions longer in ptxas of
Triton 3.6 and spills 8 bytes at D=64 where the whole-column kernel spills 16; dK and dV
of the chunked columns are summed in another order (not bit for bit).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "dense", 0.1)]
    ab.knob_ab_main(hopper_fused, "FILL_LAST_WAVE", {"whole": False, "fill": True}, cases)


if __name__ == "__main__":
    main()
