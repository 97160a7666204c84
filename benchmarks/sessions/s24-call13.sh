# Session 24, device call 13 (nvidia-h100-x1): call 12's reduce-overhead test counted 18
# skipped CUDA graphs: Inductor's reasons (TORCH_LOGS=perf_hints).
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 TORCH_LOGS=perf_hints python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "reduce_overhead" -rA
pack
