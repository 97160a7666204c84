"""Session 42: with dropout, dV's probabilities taken into its product without their
1 / (1 - p), which is applied once to dV's sum after the walk, and dS's keep test written
as a select then an FFMA (``hopper_fused.DROP_SCALE_LATE``, with ``DELTA_SCALED``),
against the scale in each element, from CUDA graphs.

    python benchmarks/sessions/s42_drop_scale_late_ab.py [--rounds 2]

The same bet as ``DELTA_SCALED`` (``s42_delta_scaled_ab.py``, 0.6-1.9% off the backward
on an H200): fewer instructions an element of the tile. ptxas of Triton 3.6 (sm_90a):
the D=64 dropout kernel 6,168 -> 5,944 instructions without partial blocks (an FMUL and
an FADD fewer an element of each consumer's tile, 64 FMULs for dV's scale after the
walk), 4,720 -> 4,672 with them; spills 276 bytes either way (0 with partial blocks);
D=128 4,920 -> 4,904, with partial blocks 5,872 either way (spills 104 -> 116).
Prediction: 0.5-2% off the backward with dropout at D=64, less at D=128.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.1), (128, "dense", 0.1), (64, "causal", 0.1),
             (128, "local(3)", 0.1)]
    ab.knob_ab_main(hopper_fused, "DROP_SCALE_LATE", {"per-element": False, "late": True},
                    cases)


if __name__ == "__main__":
    main()
