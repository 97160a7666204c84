"""Session 44: is float16 slower than bfloat16 because the GPU clocks down?

Session 43's tables had sparseflash's dense D=64 calls and cuDNN's 2.3-3.6% slower in
float16 than in bfloat16, in the same process, while Flex's times were the same in both;
NOTES v44 guessed power. Device calls 1-3 (``s44-call1.sh`` to ``s44-call3.sh``) ran this
script as it was at commits 1929c3e (call 1), 302c820 (call 2) and 37f0ae3 (call 3); its
body then moved, unchanged but for an energy column and a JSON record, to
``benchmarks.clocks``, which it now runs:

    python benchmarks/sessions/s44_dtype_clocks.py [--head-dim 64] [--methods ...]
"""

import sys

from benchmarks.clocks import main

if __name__ == "__main__":
    sys.exit(main())
