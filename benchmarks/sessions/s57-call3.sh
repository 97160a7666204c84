# Session 57, device call 3: the lazy rescale at D=128 on calls with dropout
# (hopper_pingpong.LAZY_WITH_DROPOUT): the ping-pong forward's dropout tests against float64
# with it forced on every row length (hopper.LAZY_RESCALE_ROW_KEYS = 0), then the A/B.
# Result (logs benchmarks/results/NVIDIA-H200-checks-s57-call3.log and
# -lazy-dropout-ab-s57-call3.log, NOTES v58): 20 passed; `causal` with dropout +1.8% at 16K and
# +1.4% at 4K, kept.
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s57 call 3 (benchmarks/sessions/s57-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks python -c "
import sys, pytest
from sparseflash.kernels import hopper, hopper_pingpong
hopper_pingpong.LAZY_WITH_DROPOUT = True
hopper.LAZY_RESCALE_ROW_KEYS = 0
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k',
                      'pingpong_forward_with_dropout and D128']))"
tail -3 $LOGS/checks.log
step lazy-dropout-ab python benchmarks/sessions/s57_lazy_dropout_ab.py --rounds 3
grep -E "best|B=|Error|error|O max" $LOGS/lazy-dropout-ab.log | head -30
pack
