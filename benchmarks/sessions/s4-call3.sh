# Session 4, device call 3 (nvidia-h200): GPU tests and memcheck on the final tree (the
# padding-table reuse in sparseflash.functional came after call 1's checks).
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-tests python -m pytest -q tests/test_gpu.py
step memcheck compute-sanitizer --tool memcheck python -m benchmarks.sanitize
pack
