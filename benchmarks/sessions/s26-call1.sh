# Session 26, device call 1 (one H100/H200): the GPU tests of what session 26 changed
# (modules with a declared length, compiled with padding; the CUDA-graph and compile
# tests), and the CPU test files on a GPU machine (their Triton-on-CPU cases now skip
# there) under torch 2.11.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-compile python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "compiled or cuda_graph or graphs or replay or padding_and_declared"
step cpu-files-on-gpu python -m pytest -q -p no:cacheprovider tests/test_compile.py \
    tests/test_nn.py tests/test_dropout.py
step lra-compile-tests python -m pytest -q -p no:cacheprovider tests/test_lra_train.py \
    -k "compile"
pack
