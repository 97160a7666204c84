"""Session 33: the D=128 ping-pong forward's item boundaries. Between two work items each
warp group had read its next item's walk from the tables (two trips to L2 one after the
other: the layout row and walk, then after the loop the entry's split slot) and waited
for its O store to read the Q buffer before going on. Here the loader hands the walk over
with the item (``hopper_pingpong.HANDED_WALK``), and the O store finishes under the next
item's first scores (``STORE_UNDER_NEXT``).

    python benchmarks/sessions/s33_handed_walk_ab.py [--rounds 2]

Runs on the knobs' tree: ``git checkout 2b1026e && git apply
benchmarks/sessions/s33_boundary.patch`` (main keeps the form they chose, without knobs;
call 1 ran commit e486087, whose loader handed over the item's layout row and walk, eight
ints, where the patch's hands over its coordinates too).

The four combinations alternate in one process, with ``s23_persistent_ab``'s shapes,
patterns and timing; every variant's O and LSE must equal the first's bit for bit (the
same arithmetic per item), twice each, which would show a race in the moved barrier.
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from s23_persistent_ab import compare_forwards  # noqa: E402

from sparseflash.kernels import hopper_pingpong  # noqa: E402

VARIANTS = [("as in session 32", (False, False)), ("handed walk", (True, False)),
            ("store under next", (False, True)), ("both", (True, True))]


def _set(flags):
    hopper_pingpong.HANDED_WALK, hopper_pingpong.STORE_UNDER_NEXT = flags


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    compare_forwards(128, VARIANTS, _set, rounds)


if __name__ == "__main__":
    main()
