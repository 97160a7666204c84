"""Session 34: the D=128 ping-pong forward with each item's last round merged with the
next item's first (``hopper_pingpong.MERGED``: the next item's first scores issued with
this item's last ``P V``, the epilogue after their softmax) against the session-33 loop,
alternating in one process.

    python benchmarks/sessions/s34_merged_ab.py [--rounds 2] [--reversed]

Runs on the knob's tree (call 1 ran it): ``git checkout 79cfa5b && git apply
benchmarks/sessions/s34_merged.patch``. Not kept (NOTES v36): the merged form was even to
5% slower everywhere, and wrong on ``causal`` (not debugged).

Shapes and patterns as ``s23_persistent_ab`` (plus ``local(7)``): every variant's O and
LSE against the first's (bit for bit: the arithmetic is the same), twice each, then
``launch.forward`` timed with do_bench (median).
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s23_persistent_ab  # noqa: E402
from s23_persistent_ab import compare_forwards  # noqa: E402

from sparseflash.kernels import hopper_pingpong  # noqa: E402

VARIANTS = [("session 33", False), ("merged", True)]


def _set(merged):
    hopper_pingpong.MERGED = merged


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    variants = VARIANTS[::-1] if "--reversed" in sys.argv else VARIANTS
    s23_persistent_ab.PATTERNS = s23_persistent_ab.PATTERNS + ["local(7)"]
    compare_forwards(128, variants, _set, rounds)


if __name__ == "__main__":
    main()
