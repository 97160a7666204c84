# Session 25, device call 1 (nvidia-h200 or h100, one GPU): torch.compile(mode="reduce-overhead")
# now that compile_layout builds the kernel tables and the launchers take their padding
# placeholder from them: the CUDA-graph GPU tests (the reduce-overhead one no longer xfail),
# the compiled-step timing against Flex (s25_compiled_step.py), then the GPU tests of the
# Triton kernels that the placeholder reaches.
source benchmarks/sessions/common.sh
step graph-tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "cuda_graph or reduce_overhead" -rA
step compiled-step python benchmarks/sessions/s25_compiled_step.py
step triton-tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "not pingpong and not gluon and not fused and not cuda_graph and not reduce_overhead"
pack
