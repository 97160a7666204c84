# Session 38, device call 4 (branch s38-dk-early): the fused backward's dK issued before
# the dS exchange, A/B from CUDA graphs (dK and dV compared bit for bit with main's order);
# the kernels of one dense fwd+bwd, sparseflash's and cuDNN's, on a timeline; then the
# fused backward's GPU tests against float64 with DK_EARLY on, in what time is left.
source benchmarks/sessions/common.sh
BUDGET=300
step dk-early python benchmarks/sessions/s38_dk_early_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/dk-early.log
step timeline python benchmarks/sessions/s38_kernel_timeline.py --trace $RES/traces
step checks python -c "
import sys, pytest
from sparseflash.kernels import hopper_fused
hopper_fused.DK_EARLY = True
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k',
                      'fused_backward_against and not dropout']))"
tail -3 $LOGS/checks.log
tar -czf "$OUT/s38c4.tar.gz" -C $WORK results logs
