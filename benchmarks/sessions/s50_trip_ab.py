"""Session 50: ``hopper``'s own forward with each trip running its own tile's ``P V``
(``hopper.P_IN_TRIP``) against the loop before (the tile before's ``P V`` ahead of the
scores, P carried from trip to trip), from CUDA graphs.

    python benchmarks/sessions/s50_trip_ab.py [--rounds 2]

Why. The loop carried P (the ``P V`` MMA's operand) from one trip to the next, and from
the full tiles' loop into the partial tiles' one; carried in bf16, ptxas (Triton 3.6)
adds 32 byte swaps (PRMT) a trip (NOTES v50). Session 49 carried it in float32 instead
(``P_F32``), except with key padding or anti-causal blocks, where that spilled more. Each
MMA is waited at once, so the rotation overlaps nothing: a trip that runs its tile whole
(scores, softmax, ``P V``) does the same work in the same order, carries only acc, m and
l, and keeps one more tile in flight (its ring is refilled after the ``P V``).

Compile (Triton 3.6, ptxas): the full loop without partial blocks 462 instructions
against 464; with partial blocks 488 against 477 (P in float32) and 8 local-memory
accesses a trip (none before); with padding and partial blocks 774 against 832, PRMT 41
against 178, but 46 local accesses a trip against 21; the whole kernel 23-31% fewer
instructions (no peeled first tile).

Prediction: dense and ``local(3)`` within 1% either way; unpadded ``causal`` 0-3% slower
(its spills in the loop); padded ``causal`` through the own kernel (forced: the knob's
threshold for the ping-pong kernel set where no row reaches) within 3% either way. The
outputs bit for bit the same (the same products and sums in the same order).

Result (call 1, ``s50-call1.sh``, on commit c35598e, which had the knob; log
``results/NVIDIA-H200-trip-ab-s50-call1.log``), best of two, carried -> in-trip, ms,
outputs bit for bit equal in every run: 1K (16 sequences) ``causal`` 0.119 -> 0.128,
padded 0.129 -> 0.133, dense 0.162 -> 0.169; 4K ``causal`` 0.338 -> 0.363, padded 0.373 ->
0.374; 16K ``causal`` 1.223 -> 1.308, padded 1.373 -> 1.357, dense 2.281 -> 2.363,
``local(3)`` 0.146 -> 0.152, random+global 0.159 -> 0.164; 64K ``causal`` 18.13 -> 19.26.
Refuted: the in-trip loop is 3-7% slower everywhere but padded ``causal`` at 16K (1%
faster), dense included, whose loop differs by two instructions and spills nothing in
it. Which part of the carried order is worth 3.5% on dense was not found (it issues the
next tile's refill earlier in the trip, and its ``P V`` runs back to back with the next
``Q K^T``). The knob and ``_trip`` were removed; the kernel is commit 1256072's
(NOTES v51).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper, hopper_pingpong

CAUSAL = [(64, "causal", 0.0), (64, "causal", 0.0, 20)]


def main():
    hopper_pingpong.D64_MASKED_ROW_KEYS = 1 << 30  # padded rows through the own kernel
    ab.knob_ab_main(hopper, "P_IN_TRIP", {"carried": False, "in-trip": True}, [],
                    forward=True,
                    shapes={(16, 16, 1024): CAUSAL + [(64, "dense", 0.0)],
                            (4, 16, 4096): CAUSAL,
                            (1, 16, 16384): CAUSAL + [
                                (64, "dense", 0.0), (64, "local(3)", 0.0),
                                (64, "local(1) | global(1) | random(2)", 0.0)],
                            (1, 16, 65536): [(64, "causal", 0.0)]})


if __name__ == "__main__":
    main()
