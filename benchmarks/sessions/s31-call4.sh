# Session 31, device call 4: the fused backward without the proxy fence before a slot's
# release (s31_release_fence_ab.py: gradients bit for bit, then fwd+bwd from CUDA graphs),
# then the fused backward's GPU tests with the fence left out.
source benchmarks/sessions/common.sh
BUDGET=430
step release-fence python benchmarks/sessions/s31_release_fence_ab.py --rounds 2
step gpu-fused-nofence python -c "
import sys, pytest
from sparseflash.kernels import hopper_fused
hopper_fused.RELEASE_FENCE = False
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-x', 'tests/test_gpu.py', '-k',
                      'fused_backward_against or fused_backward_with_dropout']))"
cat $LOGS/release-fence.log
tail -3 $LOGS/gpu-fused-nofence.log
pack
