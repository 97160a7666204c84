"""Session 47: the forwards' K/V copies of partial blocks with their table reads issued
before the waits (``hopper.kv_offset``), against main's (commit 2f0c510's tree, unpacked
at the path given), from CUDA graphs.

    python benchmarks/sessions/s47_kv_offset_ab.py OLD_TREE [--rounds 2]

(On branch ``s47-first-partial``, or on main after ``git apply
benchmarks/sessions/s47_kv_offset.patch``: it holds ``kv_offset``, which main does not
keep, since the result below refuted it.)

Why. Call 4 had each ``causal`` diagonal tile cost ~2-3 us more than a full one at 1K;
call 5 moved the consumers' mask reads and found nothing. The copies' own reads remain:
``hopper``'s own kernel reads a partial tile's key block from the table between its
softmax and the copy's issue (its threads wait for the read), and the ping-pong kernel's
loader reads it after it waited for the tile's buffers to come free, so the copy starts
an L2 round trip late. Here ``hopper``'s own kernel reads it at the top of the step
(with partial blocks only: on table walks without them ptxas then spills 8 bytes) and
the loader before its waits. ptxas of Triton 3.6: ``hopper``'s partial variants spill 64
bytes where 72 and 88.

Prediction: 5-15% off ``causal`` forwards at 1K, less at 4K and 16K; ``butterfly`` and
dense at D=128 (the loader's reads on table walks move too) within noise.

Result (call 6, ``s47-call6.sh``, log ``results/NVIDIA-H200-kv-offset-s47-call6.log``;
outputs and LSE bit for bit main's in every run), best of two rounds, main -> early, ms:
``causal`` 1K 0.144 -> 0.144 (D=64), 0.208 -> 0.208 (D=128); 4K 0.375 -> 0.381, 0.513 ->
0.514; 16K D=128 1.832 -> 1.834; ``butterfly`` 0.244 -> 0.242, dense 3.390 -> 3.407.
Refuted: neither the copies' reads nor (call 5) the masks' reads are what a diagonal
tile waits for. Not run: the GPU tests (the A/B's bitwise comparison only).
"""

from benchmarks.sessions import ab

SHAPES = {(16, 16, 1024): [(64, "causal", 0.0), (128, "causal", 0.0)],
          (4, 16, 4096): [(64, "causal", 0.0), (128, "causal", 0.0)],
          (1, 16, 16384): [(128, "causal", 0.0), (128, "butterfly", 0.0),
                           (128, "dense", 0.0)]}


def main():
    ab.tree_ab_main(("main", "early"), SHAPES)


if __name__ == "__main__":
    main()
