# Session 41, device call 2 (an H200): hopper_exp2's inline PTX against float64, the fused
# backward's GPU tests against float64 with 2 of 8 exponentials by the polynomial, then
# its A/B (benchmarks/sessions/s41_exp_poly_ab.py) from CUDA graphs.
source benchmarks/sessions/common.sh
BUDGET=560
nvidia-smi --query-gpu=name --format=csv,noheader
step checks-exp2 python -m pytest -q -p no:cacheprovider tests/test_hopper_exp2.py
tail -3 $LOGS/checks-exp2.log
step ab python benchmarks/sessions/s41_exp_poly_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/ab.log
step checks-poly python -c "
import sys, pytest
from sparseflash.kernels import hopper_fused as f
f.EXP_POLY = 2
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k',
                      'fused_backward_against or fused_backward_with_dropout']))"
tail -3 $LOGS/checks-poly.log
tar -czf "$OUT/s41c2.tar.gz" -C $WORK results logs
