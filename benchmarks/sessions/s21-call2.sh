# Session 21, device call 2 (nvidia-h200, one GPU): the split fused backward after call 1,
# now reading LSE and delta from shared memory where the softmax needs them (not ahead of
# the products: 32 registers a thread) and a partial block's query row from the table in
# its branch (not one tile ahead); ptxas spills 0 bytes (dense) and 60 (partial blocks)
# against call 1's 16 and 228. Its GPU tests, then s21_split_ab.py at D=128 and D=64.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused or deterministic"
step ab-d128 python benchmarks/sessions/s21_split_ab.py
step ab-d64 python benchmarks/sessions/s21_split_ab.py --head-dim 64
pack
