# Session 24, device call 11 (nvidia-h200, one GPU): torch.compile(mode="reduce-overhead")
# with the custom op's placeholder seed on the inputs' device: its GPU test, then
# s24_compile_graphs.py (skipped graphs and fwd+bwd time, the seed on the CPU as before
# and on the GPU).
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "reduce_overhead or cuda_graph"
step compile-graphs python benchmarks/sessions/s24_compile_graphs.py
pack
