"""Session 47: the forwards' partial-block reads issued before the tile's waits
(``hopper.partial_reads``) against after its scores (the tree of commit 2f0c510, unpacked
at the path given), from CUDA graphs.

    python benchmarks/sessions/s47_early_mask_ab.py OLD_TREE [--rounds 2]

(On branch ``s47-early-mask``, or on main after ``git apply
benchmarks/sessions/s47_early_mask.patch``: it holds ``partial_reads``, which main does
not keep, since the result below refuted it.)

Why. Session 47's call 4 (``s47-call4.sh``) timed ``causal`` against ``causal |
local(0)``, the same block-lower-triangular layout with its diagonal blocks full: the
same tiles, rows and schedule, only the element mask and its partial-block code path
differ. At N = 1K (16 sequences, 16 heads, bf16) the forward took 0.139 ms against 0.110
at D=64 and 0.214 against 0.164 at D=128: each diagonal tile (15.5 an SM) costs ~2-3 us
more than a full one; at 4K 12% and 6% more time. Both forwards read a partial tile's
key block and mask code from the tables after its scores are in, on the way to its
softmax: an L2 round trip (~0.5 us) that the ping-pong kernel's other warp group waits
out too, at its turn.

Prediction: 5-10% off the ``causal`` forward at 1K, 2-4% at 4K, under 1% at 16K; the
ping-pong kernel's dropout variant spills 24 bytes where it spilled 112 (ptxas of Triton
3.6), ``hopper``'s own D=64 kernel with partial blocks 96 and 104 where 72 and 88, so its
part (D=64 at 1K) may gain less or lose.

Result (call 5, ``s47-call5.sh``, log ``results/NVIDIA-H200-early-mask-s47-call5.log``;
41 forward GPU tests with partial blocks, padding and empty rows passed first, log
``-checks-s47-call5.log``), best of two rounds, after -> before, ms: 1K D=64 0.144 ->
0.143, D=128 0.207 -> 0.211; 4K 0.375 -> 0.371, 0.504 -> 0.501; 16K 1.275 -> 1.279,
1.778 -> 1.818. Within -2.2% to +1.0% everywhere: refuted. The reads were not what a
diagonal tile waits for.
"""

from benchmarks.sessions import ab

CAUSAL = [(64, "causal", 0.0), (128, "causal", 0.0)]
SHAPES = {(16, 16, 1024): CAUSAL, (4, 16, 4096): CAUSAL, (1, 16, 16384): CAUSAL}


def main():
    ab.tree_ab_main(("after", "before"), SHAPES)


if __name__ == "__main__":
    main()
