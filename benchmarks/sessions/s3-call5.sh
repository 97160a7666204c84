# Session 3, device call 5 (nvidia-h200): the final tree on a GPU (tests/test_gpu.py) and
# the host time per call after the first host-path cuts (compare call 4's log).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -x tests/test_gpu.py
step overhead python -m benchmarks.overhead --top 15
pack
