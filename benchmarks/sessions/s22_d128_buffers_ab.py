"""Session 22: the fused backward at D=128 with a third Q/dO slot (``STAGES=3``) or a second
dQ buffer per consumer warp group (``DQ_BUFS=2``), 32 KB of shared memory each, which
fits beside the rest (231,504 and 230,992 bytes of the 232,448 a program may take on
sm_90), against the library's (2, 1) and the two-kernel backward, alternating in one
process (``s21_split_ab.py``'s loop).

    python benchmarks/sessions/s22_d128_buffers_ab.py [--rounds 2]
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from s21_split_ab import main  # noqa: E402

# (label, SPARSEFLASH_FUSED_BACKWARD, hopper_fused attributes)
VARIANTS = [("two kernels", "0", dict(STAGES=2, DQ_BUFS=1)),
            ("fused 2 slots 1 dq", "1", dict(STAGES=2, DQ_BUFS=1)),
            ("fused 3 slots 1 dq", "1", dict(STAGES=3, DQ_BUFS=1)),
            ("fused 2 slots 2 dq", "1", dict(STAGES=2, DQ_BUFS=2))]

if __name__ == "__main__":
    main(VARIANTS, None)
