"""Session 49: the forwards' full-tile loop carrying P in float32 where the layout has
partial blocks (``P_F32`` in ``hopper``'s own kernel and in the ping-pong kernel) against
the tree before (commit 7866348's sparseflash, unpacked at the path given), from CUDA
graphs.

    python benchmarks/sessions/s49_pcarry_ab.py OLD_TREE [--rounds 2]

Why. Call 1 (``s49_causal_kernel_ab.py``) found both forwards slower on ``causal`` than
on ``causal | local(0)`` (the same tiles with full diagonal blocks) by far more than the
diagonal's share of the tiles: at 64K, D=64, 19.8-20.4 ms against 18.2-18.5 (8-9%, where
the diagonal is 1 tile in 256). ptxas (Triton 3.6) says why: with partial blocks, P is
carried in bf16 through the full tiles' loop into the partial tiles' one, LLVM keeps it
in 16-bit registers (128 ``phi bfloat``; without partial blocks it carries float and
casts at the top), and ptxas packs each pair the wrong way round and swaps it back: 32
``PRMT`` a trip, on the serial path before the ``P V`` MMA. The full loop: ``hopper``'s
own D=64 kernel 509 instructions a trip against 464 without partial blocks, the
ping-pong kernel's 455 against 422 (D=64) and 496 against 464 (D=128). Carrying P in
float32 through the full loop, cast at the top of a trip, makes them 477, 423 and 464,
with no new spill in either D=64 kernel (the ping-pong D=128 kernel: 56 bytes, outside
the tile loops). Layouts without partial blocks compile to the same machine code.
Prediction: ``causal`` D=64 forwards 5-8% faster at 16K and 64K (the ping-pong kernel),
3-6% at 1K (the own kernel, whose diagonal tile is a larger share); D=128 2-5%, less
where its MMAs bound it; dropout and ragged ends (dense at N = 1,000) no slower.

Result (call 2, ``s49-call2.sh``, log ``results/NVIDIA-H200-pcarry-ab-s49-call2.log``; 47
forward GPU tests passed first), best of two, before -> after, ms, outputs bit for bit:
1K ``causal`` 0.124 -> 0.119 (D=64, own kernel) and 0.184 -> 0.178 (D=128); dense N =
1,000 0.183 -> 0.174 and 0.250 -> 0.249; 4K 0.358 -> 0.371 (D=64, ping-pong) and 0.492 ->
0.489; with dropout 0.1 0.882 -> 0.702 and 1.132 -> 0.900; 16K 1.263 -> 1.303 and 1.786
-> 1.757; 64K 20.02 -> 20.55 and 28.39 -> 27.89. Confirmed for the own kernel, dropout
and D=128; refuted for the ping-pong D=64 kernel without dropout, whose casts land in its
turn: that variant keeps its old code (NOTES v50).
"""

from benchmarks.sessions import ab

CAUSAL = [(64, "causal", 0.0), (128, "causal", 0.0)]
SHAPES = {
    (16, 16, 1024): CAUSAL,
    (16, 16, 1000): [(64, "dense", 0.0), (128, "dense", 0.0)],
    (4, 16, 4096): CAUSAL + [(64, "causal", 0.1), (128, "causal", 0.1)],
    (1, 16, 16384): CAUSAL,
    (1, 16, 65536): CAUSAL,
}


def main():
    ab.tree_ab_main(("before", "after"), SHAPES)


if __name__ == "__main__":
    main()
