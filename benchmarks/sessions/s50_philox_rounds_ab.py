"""Session 50: how much of dropout's cost in the Gluon kernels is the Philox draws: the
kernels of this tree (Philox-4x32 with 10 rounds) against copies whose
``hopper_dropout.PHILOX_ROUNDS`` is 5 and 0, from CUDA graphs.

    python benchmarks/sessions/s50_philox_rounds_ab.py TREE_5 TREE_0 [--rounds 2]

(``TREE_5``, ``TREE_0``: unpacked ``sparseflash`` trees of this commit with the constant
changed, ``s50-rounds5.tar`` and ``s50-rounds0.tar`` in ``s50-call7.sh``.)

Why. Call 6 (``s50-call6.sh``) measured dropout 0.1 doubling our forward's time
(1.95-1.99x) where it adds a third to FlashAttention-2's, which compares 8-bit draws
where ours are 16-bit (a Philox call serves sixteen scores there, eight here). A probe,
not a change: with fewer rounds the draws are not the Triton kernels' (nor random, at 0
rounds), so outputs differ; everything else (the draws' stores and loads in shared
memory, the compares, the selects) stays. Half the rounds cost what half the calls
would, so 5 rounds prices 8-bit draws (less their unpacking); 0 rounds prices
dropout without Philox.

What. bf16, B=4, H=16, N=4096: the ping-pong forward and the fused backward with dropout
0.1 at D=64 and D=128 dense, and dense D=64 without dropout (the same kernels in all
three variants: the no-dropout reference in the same process).

Prediction: if the draws are most of the doubling, the D=64 forward with dropout at 0
rounds near 1.1-1.2x the one without, at 5 rounds ~1.5x; the backward's share smaller
(its tiles carry more products for the same draws).

Result (call 7, ``s50-call7.sh``, log ``results/NVIDIA-H200-philox-rounds-s50-call7.log``),
best of two, 10 / 5 / 0 rounds, ms: forward D=64 1.207 / 0.991 / 0.857 (0.574 without
dropout), D=128 1.555 / 1.294 / 1.048; backward D=64 2.510 / 2.190 / 2.038 (1.507 without),
D=128 3.398 / 3.227 / 3.030. Partly refuted: Philox is about half of what dropout adds
(55% in the D=64 forward, 47% in its backward); the rest is dropout's other work and, in
the forward, the switch to the ping-pong kernel (NOTES v51).
"""

import argparse

from benchmarks.sessions import ab

CASES = [(64, "dense", 0.1), (128, "dense", 0.1), (64, "dense", 0.0)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tree5")
    parser.add_argument("tree0")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    variants = {"10 rounds": ab.kernels_of(None), "5 rounds": ab.kernels_of(args.tree5, "r5"),
                "0 rounds": ab.kernels_of(args.tree0, "r0")}
    print("B=4 H=16 N=4096 forward", flush=True)
    ab.forward_ab(variants, CASES, rounds=args.rounds, B=4, H=16, N=4096)
    print("B=4 H=16 N=4096 backward", flush=True)
    ab.backward_ab(variants, CASES, rounds=args.rounds, B=4, H=16, N=4096, timer="cudagraph")


if __name__ == "__main__":
    main()
