# Session 41, device call 6 (an H200, the session's last ~4 minutes): the early dK from
# registers (benchmarks/sessions/s41_dk_registers_ab.py) A/B from CUDA graphs, then the
# fused backward's GPU tests against float64 without dropout, bf16 (dtype1), with it on.
source benchmarks/sessions/common.sh
BUDGET=190
step ab python benchmarks/sessions/s41_dk_registers_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/ab.log
step checks-dk-registers python -c "
import sys, pytest
from sparseflash.kernels import hopper_fused as f
f.DK_FROM_REGISTERS = True
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k',
                      'fused_backward_against and dtype1']))"
tail -3 $LOGS/checks-dk-registers.log
tar -czf "$OUT/s41c6.tar.gz" -C $WORK results logs
