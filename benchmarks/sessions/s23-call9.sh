# Session 23, device call 9 (nvidia-h200, one GPU): the persistent ping-pong forward with
# two Q buffers per warp group (the next item's Q loaded before the current epilogue) on
# two K/V buffers, against the library's three K/V buffers and one Q buffer. GPU tests of
# the ping-pong forward with (2, 2), then s23_persistent_ab.py --qbufs-ab.
source benchmarks/sessions/common.sh
step tests-2-2 env SPARSEFLASH_NO_AUTOTUNE=1 python -c "
import sys, pytest
from sparseflash.kernels import hopper_pingpong
hopper_pingpong.STAGES, hopper_pingpong.Q_BUFS = 2, 2
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k', 'pingpong']))"
step ab python benchmarks/sessions/s23_persistent_ab.py --qbufs-ab --rounds 2
pack
