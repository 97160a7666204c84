# Session 22, device call 10 (nvidia-h200, one GPU): the D=64 Gluon forward with a share of
# its exponentials on the FMA pipe (s22_soft_exp2_ab.py), then the Gluon forward's GPU
# tests with each share (the module attribute set before pytest runs).
source benchmarks/sessions/common.sh
step ab python benchmarks/sessions/s22_soft_exp2_ab.py
for v in 4 2; do
  step "tests-soft$v" env SPARSEFLASH_NO_AUTOTUNE=1 python -c "
import sys, pytest
from sparseflash.kernels import hopper
hopper.SOFT_EXP2 = $v
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k', 'gluon_forward']))"
done
pack
