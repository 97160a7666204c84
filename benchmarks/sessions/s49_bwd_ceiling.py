"""Session 49: the D=64 ``causal`` backward against its ceilings at N = 64K (B=1, H=16,
bf16), from CUDA graphs: ``causal | local(0)`` (the same tiles, no partial blocks) and
dense.

    python benchmarks/sessions/s49_bwd_ceiling.py [--rounds 1]

Why. At 64K the D=64 ``causal`` fwd+bwd ran at 1.70x Flex (the mark is 1.8x), its
backward at ~93% of the dense backward's TFLOP/s (by difference, NOTES v48). Whether the
partial blocks or the columns' unequal lengths cost that is not known.

Result (call 2, ``s49-call2.sh``, log ``results/NVIDIA-H200-bwd-ceiling-s49-call2.log``):
``causal`` 47.2-47.8 ms (461-467 TFLOP/s), ``causal | local(0)`` 45.8-46.5 (474-481),
dense 93.6-99.3 (443-470): the backward runs ``causal`` at dense's rate; the fwd+bwd's
distance from Flex's mark was the forward's.
"""

import argparse

from benchmarks.sessions import ab


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    ab.backward_ab({"main": ab.kernels_of(None)},
                   [(64, "causal", 0.0), (64, "causal | local(0)", 0.0), (64, "dense", 0.0)],
                   rounds=args.rounds, B=1, H=16, N=65536, timer="cudagraph")


if __name__ == "__main__":
    main()
