"""Session 36: the persistent fused backward (branch ``s35-persistent-views``: as many
programs as the GPU holds, each drawing key columns from a counter) against main's, one
program per key column, alternating in one process (``ab.backward_ab``).

    git archive s35-persistent-views sparseflash | tar -x -C s36_persistent
    python benchmarks/sessions/s36_persistent_ab.py s36_persistent [--rounds 2]

Session 32 measured the persistent kernel (then with K's and V's views before the tile
loop) 0.5-3.5% faster on patterns of short columns and even on dense (NOTES v34).

Result (call 1, an H200; NOTES v38): D=64 short columns 1-4.7% faster, ``causal`` 2.9% and
``local(3)`` with dropout 2.3% slower, D=128 within ±1.3%. Not kept.
"""

import argparse

import torch
import triton

from benchmarks.sessions import ab

PATTERNS = ["dense", "causal", "strided(sqrt(n))", "butterfly", "local(3)",
            "local(1) | global(1) | random(2)", "local(1)", "sparse_transformer_strided"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tree", help="the persistent kernel's tree (its sparseflash/)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    variants = {"main": ab.kernels_of(None),
                "persistent": ab.kernels_of(args.tree, "kernels_persistent")}
    cases = [(D, p, 0.0) for D in (128, 64) for p in PATTERNS] + [
        (128, "dense", 0.1), (128, "local(3)", 0.1), (64, "local(3)", 0.1)]
    ab.backward_ab(variants, cases, rounds=args.rounds)


if __name__ == "__main__":
    main()
