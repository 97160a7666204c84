"""Session 23: at D=64, the Gluon forward's own kernel (two programs an SM, the default)
against the persistent ping-pong kernel (``SPARSEFLASH_PINGPONG=1``), alternating in one
process. Session 20 (NOTES v22) had the ping-pong kernel, then a program per tile, at
437-463 TFLOP/s on dense D=64 against 479; its programs are persistent since v25.

    python benchmarks/sessions/s23_d64_pingpong_ab.py [--rounds 2]

The patterns, shapes, comparison and timing of ``s23_persistent_ab.compare_forwards``
at D=64 (both kernels are checked against float64 in tests/test_gpu.py). Call 8 ran this
script's first form, which ran each variant once and printed the largest difference to
the default's output (0 for every row).
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from s23_persistent_ab import compare_forwards  # noqa: E402

VARIANTS = [("two programs an SM", "auto"), ("persistent ping-pong", "1")]


def _set_pingpong(setting):
    os.environ["SPARSEFLASH_PINGPONG"] = setting


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    compare_forwards(64, VARIANTS, _set_pingpong, rounds)


if __name__ == "__main__":
    main()
