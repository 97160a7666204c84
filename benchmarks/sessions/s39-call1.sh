# Session 39, device call 1 (an H100): session 38's early dK with dropout, and the slot
# released at the end of each tile (benchmarks/sessions/s39_dk_early_ab.py), A/B from CUDA
# graphs; then the fused backward's GPU tests against float64 with each turned on.
source benchmarks/sessions/common.sh
BUDGET=420
step ab python benchmarks/sessions/s39_dk_early_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/ab.log
step checks-dropout python -c "
import sys, pytest
from sparseflash.kernels import hopper_fused as f
f.dk_early = lambda has_dropout, key_rows: f.DK_EARLY and key_rows > f.KEYS_PER_WG
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k',
                      'fused_backward_with_dropout']))"
tail -3 $LOGS/checks-dropout.log
step checks-release python -c "
import sys, pytest
from sparseflash.kernels import hopper_fused as f
f.RELEASE_EARLY = True
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k',
                      'fused_backward_against and not dropout']))"
tail -3 $LOGS/checks-release.log
tar -czf "$OUT/s39c1.tar.gz" -C $WORK results logs
