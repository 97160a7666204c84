"""Session 21: the fused backward's dK and dV leaving by TMA stores through free shared
buffers (``hopper_fused.TMA_STORE``) against the threads' pointer stores, and the
two-kernel backward, alternating in one process (``s21_split_ab.py``'s loop).

    python benchmarks/sessions/s21_store_ab.py [--head-dim 64] [--rounds 2]
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from s21_split_ab import main  # noqa: E402

VARIANTS = [("two kernels", "0", True), ("fused, pointers", "1", False),
            ("fused, TMA", "1", True)]

if __name__ == "__main__":
    main(VARIANTS, "TMA_STORE")
