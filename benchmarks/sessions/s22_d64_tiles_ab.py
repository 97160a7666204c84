"""Session 22: the fused backward's tiles at D=64. Today one consumer warp group on 64 key
rows and 64 query rows a step (two programs an SM); against it two consumer warp groups on
128 key rows (one program an SM, half the Q/dO copies and dQ reductions per product), with
64 or 128 query rows a step, and the two-kernel backward, alternating in one process
(``s21_split_ab.py``'s loop, variants set by ``hopper_fused`` attributes).

    python benchmarks/sessions/s22_d64_tiles_ab.py [--head-dim 64] [--rounds 2]
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from s21_split_ab import main  # noqa: E402

from sparseflash.kernels import hopper_fused  # noqa: E402

D128 = hopper_fused.TILES[128]
# (label, SPARSEFLASH_FUSED_BACKWARD, hopper_fused.TILES): by head dim, the tiles (key rows,
# query rows, register cap) in order of preference. (Call 4 ran this script with each head
# dim's entry a single tile, the form before commit "D=64 on 128 x 128 tiles", and
# stopped at its first fused variant.)
VARIANTS = [("two kernels", "0", {128: D128, 64: ((64, 64, 128),)}),
            ("fused 64k x 64q", "1", {128: D128, 64: ((64, 64, 128),)}),
            ("fused 128k x 64q", "1", {128: D128, 64: ((128, 64, 168),)}),
            ("fused 128k x 128q", "1", {128: D128, 64: ((128, 128, 168),)})]

if __name__ == "__main__":
    if "--head-dim" not in sys.argv:
        sys.argv += ["--head-dim", "64"]
    main(VARIANTS, "TILES")
