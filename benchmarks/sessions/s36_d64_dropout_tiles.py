"""Session 36: the D=64 fused backward with dropout on 128 x 64 tiles (key rows x query
rows a step) against its 128 x 128 ones, alternating in one process (``ab.backward_ab``).

    python benchmarks/sessions/s36_d64_dropout_tiles.py [--rounds 2]
    python benchmarks/sessions/s36_d64_dropout_tiles.py --pytest -k "..."   # on 128 x 64

Session 22 chose 128 x 128 at D=64 (NOTES v24: 128 x 64 even on causal and 2-10% slower
elsewhere, without dropout). With dropout, Triton 3.6's ptxas for sm_90 reports 288 spill
bytes on 128 x 128 (784 with partial blocks, at their draw places), none on 128 x 64.
``--pytest`` runs pytest's arguments with 128 x 64 tiles at D=64 (the GPU tests against
float64 pick their tiles from ``hopper_fused.TILES``).

Result (call 7, an H100, and call 8, an H200; NOTES v38): with dropout 128 x 64 ran
17-18% faster on ``causal``, 0-5% slower on dense, ``local(3)`` and ``butterfly``; without
dropout 10% slower. Kept for dropout on partial blocks (``TILES_PARTIAL_DROPOUT``).
"""

import argparse
import sys

import torch
import triton

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused

DEFAULT = hopper_fused.TILES[64]
NARROW = ((128, 64, 168),) + DEFAULT[1:]
LANDED = (hopper_fused.TILES[64], hopper_fused.TILES_PARTIAL_DROPOUT[64])


def use(tiles):
    """D=64 calls on ``tiles`` from now on, with dropout on partial blocks too (which
    ``TILES_PARTIAL_DROPOUT`` sends to 128 x 64 since this session)."""
    hopper_fused.TILES[64] = hopper_fused.TILES_PARTIAL_DROPOUT[64] = tiles


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--pytest", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.pytest is not None:
        import pytest
        use(NARROW)
        sys.exit(pytest.main(args.pytest))
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    launch = ab.kernels_of(None)
    variants = {"128x128": (launch, lambda: use(DEFAULT)),
                "128x64": (launch, lambda: use(NARROW))}
    cases = [(64, p, 0.1) for p in ("dense", "causal", "local(3)", "butterfly")] + [
        (64, "dense", 0.0), (64, "causal", 0.0)]
    ab.backward_ab(variants, cases, rounds=args.rounds)
    hopper_fused.TILES[64], hopper_fused.TILES_PARTIAL_DROPOUT[64] = LANDED


if __name__ == "__main__":
    main()
