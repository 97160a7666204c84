# Session 22, device call 5 (nvidia-h200, one GPU): the fused backward at D=128 with a
# third Q/dO slot or a second dQ buffer (s22_d128_buffers_ab.py), then the fused tests with
# each (the module attributes set before pytest runs).
source benchmarks/sessions/common.sh
step ab python benchmarks/sessions/s22_d128_buffers_ab.py
for v in "STAGES=3" "DQ_BUFS=2"; do
  step "tests-$v" env SPARSEFLASH_NO_AUTOTUNE=1 python -c "
import sys, pytest
from sparseflash.kernels import hopper_fused
hopper_fused.$v
print('STAGES', hopper_fused.STAGES, 'DQ_BUFS', hopper_fused.DQ_BUFS)
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k', 'fused_backward_against and D128']))"
done
pack
