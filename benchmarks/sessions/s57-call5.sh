# Session 57, device call 5: the lazy rescale in the D=64 ping-pong forward with dropout
# (hopper_pingpong.LAZY_HEAD_DIMS): its D=64 dropout tests against float64 with it forced on
# every row length, then the A/B.
# Result (logs benchmarks/results/NVIDIA-H200-checks-s57-call5.log and
# -lazy-d64-dropout-ab-s57-call5.log, NOTES v58): 8 passed; `causal` with dropout +0.1% at
# 16K, -1.0% at 4K: not kept.
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s57 call 5 (benchmarks/sessions/s57-call5.sh)"
step checks python -c "
import sys, pytest
from sparseflash.kernels import hopper, hopper_pingpong
hopper_pingpong.LAZY_HEAD_DIMS = (64, 128)
hopper.LAZY_RESCALE_ROW_KEYS = 0
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k',
                      'pingpong_forward_with_dropout and D64']))"
tail -3 $LOGS/checks.log
step lazy-d64-dropout-ab python benchmarks/sessions/s57_lazy_d64_dropout_ab.py --rounds 2
grep -E "best|B=|Error|error" $LOGS/lazy-d64-dropout-ab.log | head
pack
