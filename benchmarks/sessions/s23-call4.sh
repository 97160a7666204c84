# Session 23, device call 4 (nvidia-h200, one GPU): the persistent ping-pong forward's
# epilogue: O by TMA through the Q buffer (released after the store) against the threads'
# stores with the Q buffer released once the item's last score product completed. GPU
# tests of the ping-pong forward with the latter, then the A/B in one process.
source benchmarks/sessions/common.sh
step tests-early-q env SPARSEFLASH_NO_AUTOTUNE=1 python -c "
import sys, pytest
from sparseflash.kernels import hopper_pingpong
hopper_pingpong.TMA_STORE = False
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k', 'pingpong']))"
step ab python benchmarks/sessions/s23_persistent_ab.py --store-ab --rounds 2
pack
