# Session 25, device call 7 (nvidia-h200, one GPU): on torch 2.11, the warning for a layout
# built inside a compiled call (tests/test_compile.py, CPU tensors) and the reduce-overhead
# and dropout-in-graphs GPU tests with it in place.
source benchmarks/sessions/common.sh
step compile-tests python -m pytest -q -p no:cacheprovider tests/test_compile.py -rA
step graph-tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "reduce_overhead or dropout_in_cuda_graphs" -rA
pack
