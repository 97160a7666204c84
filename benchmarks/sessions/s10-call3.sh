# Session 10, device call 3 (nvidia-h200, one GPU): the dK/dV ladder from a minimal kernel
# on transposed scores to sparseflash's structure (s10_dkdv_ladder.py), then the GPU tests
# on this tree (call 2's dK/dV change reverted; forward through descriptors for long rows).
source benchmarks/sessions/common.sh
step ladder python benchmarks/sessions/s10_dkdv_ladder.py
step gpu-tests python -m pytest -q tests/test_gpu.py
pack
