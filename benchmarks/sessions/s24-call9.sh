# Session 24, device call 9 (nvidia-h100-x1; a fresh machine, not call 7's, whose short D=64 rows were
# host-bound): a whole fwd+bwd in a CUDA graph, its new GPU test (D=64 and 128), then
# eager against graph-replayed fwd+bwd for sparseflash and Flex (s24_graph_timing.py).
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "cuda_graph"
step graph-timing python benchmarks/sessions/s24_graph_timing.py
pack
