# Session 24, device call 12 (nvidia-h200, one GPU): call 11 again after its failure (the
# placeholder seed kept between calls became a graph constant that a CUDA graph had
# written; saved for the backward it was an output aliasing an input): the seed is now
# made in the graph and not saved without dropout. The GPU test, then
# s24_compile_graphs.py.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "reduce_overhead or cuda_graph"
step compile-graphs python benchmarks/sessions/s24_compile_graphs.py
pack
