"""Session 33: the D=128 ping-pong forward's item boundaries, after the trace (calls 3-4,
``s33_trace.py``) showed where a work item's ~3,600 cycles beyond its tiles go: the
warp groups' start (~890 cycles: the coordinates' integer divisions and the walk's reads
from L2) and epilogue (~2,190: O = acc / l by 64 divisions a thread, the split slot read
from L2, the wait for the O store). Three forms alternate in one process:

* ``session 32``: as on main before;
* ``handed``: the loader hands each warp group its item's coordinates and walk
  (``hopper_pingpong.HANDED_WALK``), and the O store finishes under the next item's
  first scores (``STORE_UNDER_NEXT``): bit for bit the session-32 outputs;
* ``handed + 1/l``: also O = acc * (1 / l) (``RECIPROCAL``), which may differ from acc / l
  in the last bit before the cast to bf16.

    python benchmarks/sessions/s33_boundary_ab.py [--rounds 3] [--reversed]

Runs on the knobs' tree (calls 5-6 ran it): ``git checkout 2b1026e && git apply
benchmarks/sessions/s33_boundary.patch``; main keeps the last variant without knobs.

Shapes and patterns as ``s23_persistent_ab``: every variant's O and LSE against the
first's (bit for bit, else the largest difference), twice each.
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s23_persistent_ab  # noqa: E402
from s23_persistent_ab import compare_forwards  # noqa: E402

from sparseflash.kernels import hopper_pingpong  # noqa: E402

VARIANTS = [("session 32", (False, False, False)), ("handed", (True, True, False)),
            ("handed + 1/l", (True, True, True))]


def _set(flags):
    (hopper_pingpong.HANDED_WALK, hopper_pingpong.STORE_UNDER_NEXT,
     hopper_pingpong.RECIPROCAL) = flags


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    variants = VARIANTS
    if "--reversed" in sys.argv:
        # (Call 6) Dense ran 1-1.5% slower in the later variants of call 5: the order (the
        # clock falls under the dense rows' load), or the store's deferral? The new form
        # first, then without the deferral, then the session-32 form.
        variants = [("handed + 1/l", (True, True, True)),
                    ("no deferral + 1/l", (True, False, True)),
                    ("session 32", (False, False, False))]
        s23_persistent_ab.PATTERNS = ["dense", "causal", "local(3)", "local(1)"]
    compare_forwards(128, variants, _set, rounds)


if __name__ == "__main__":
    main()
