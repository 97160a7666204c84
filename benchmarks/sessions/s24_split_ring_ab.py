"""Session 24: the D=128 ping-pong forward with its K and V buffers in rings of their own
(a K buffer released after its scores, a V buffer after its ``P V``) and two Q buffers per
warp group, against the session-23 kernel (one ring of three K/V slots, one Q buffer).

    python benchmarks/sessions/s24_split_ring_ab.py [--rounds 2] [--which-costs-causal]

Times this tree's ping-pong forward at (K buffers, V buffers, Q buffers per warp group)
= (2, 3, 2), the new default, (3, 3, 1) (the old depths, K released early) and (3, 2, 2),
alternating in one process; the session script runs the session-23 tree's
``s23_persistent_ab.py`` in processes of its own between them. Every variant's O and LSE
must equal the first's bit for bit (the same arithmetic per item), twice each, which
would show a race in the new barriers. Shapes, patterns and timing as
``s23_persistent_ab.compare_forwards``.

With ``--which-costs-causal`` (call 2): call 1 had (2, 3, 2) 2-3% slower than (3, 3, 1)
on causal rows (dense even, short rows 4-8% faster); (2, 3, 1) tells the K ring's depth
from the second Q buffer, on causal, dense and ``local(3)`` only.
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s23_persistent_ab  # noqa: E402
from s23_persistent_ab import compare_forwards  # noqa: E402

from sparseflash.kernels import hopper_pingpong  # noqa: E402

DEPTHS = ((2, 3, 2), (3, 3, 1), (3, 2, 2))


def _set_depths(depths):
    hopper_pingpong.K_STAGES, hopper_pingpong.V_STAGES, hopper_pingpong.Q_BUFS = depths


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    depths = DEPTHS
    if "--which-costs-causal" in sys.argv:
        depths = ((2, 3, 2), (2, 3, 1), (3, 3, 1))
        s23_persistent_ab.PATTERNS = ["causal", "dense", "local(3)"]
    variants = [(f"K{k} V{v} Q{q}", (k, v, q)) for k, v, q in depths]
    compare_forwards(128, variants, _set_depths, rounds)


if __name__ == "__main__":
    main()
