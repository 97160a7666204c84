"""Session 36: the D=64 fused backward with dropout on partial blocks, after it moved to
128 x 64 tiles (``hopper_fused.TILES_PARTIAL_DROPOUT``) with its draws early/late (the
place chosen on 128 x 128 tiles): the other places on 128 x 64 (where ptxas spills nothing
with any of them), and 128 x 128 with early/late, on ``causal`` and on a sparse layout
with partial blocks (``local(3) & causal``), alternating (``ab.backward_ab``).

    python benchmarks/sessions/s36_partial_dropout.py [--rounds 2]

Result (call 9, an H200; NOTES v38): (early, late) stays the best place on 128 x 64
(``causal`` 5.585 ms, (late, late) 5.658, (split, split) 5.921), and 128 x 64 is 14%
faster than 128 x 128 on both layouts.
"""

import argparse

import torch
import triton

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused as hf

L, S, E = hf.LATE, hf.SPLIT, hf.EARLY
NARROW = hf.TILES_PARTIAL_DROPOUT[64]
WIDE = hf.TILES[64]


def setting(tiles, places):
    def setup():
        hf.TILES_PARTIAL_DROPOUT[64] = tiles
        hf.DRAW_ORDER[64, True] = hf.draw_order(*places)
    return setup


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    launch = ab.kernels_of(None)
    default = (hf.TILES_PARTIAL_DROPOUT[64], hf.DRAW_ORDER[64, True])
    variants = {"128x64 early/late": (launch, setting(NARROW, (E, L))),
                "128x64 late/late": (launch, setting(NARROW, (L, L))),
                "128x64 split/split": (launch, setting(NARROW, (S, S))),
                "128x128 early/late": (launch, setting(WIDE, (E, L)))}
    ab.backward_ab(variants, [(64, "causal", 0.1), (64, "local(3) & causal", 0.1)],
                   rounds=args.rounds)
    hf.TILES_PARTIAL_DROPOUT[64], hf.DRAW_ORDER[64, True] = default


if __name__ == "__main__":
    main()
