# Session 13, device call 5 (nvidia-h100-x1): the final tree on an H100.
# 1. tests/test_gpu.py (fixed tiles).
# 2. benchmarks/cold_start.py at D=64, empty Triton cache, then again on its cache
#    (session 12's README figures for a fresh H100 were 8.9-12.9 s per first forward).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
rm -rf /tmp/tc-h100
step cold-d64 env TRITON_CACHE_DIR=/tmp/tc-h100 python benchmarks/cold_start.py \
    --head-dims 64 --label "final tree, empty cache" --out $RES/cold-d64.json
step cold-again-d64 env TRITON_CACHE_DIR=/tmp/tc-h100 python benchmarks/cold_start.py \
    --head-dims 64 --label "final tree, the cache of the run before" --out $RES/cold-again-d64.json
pack
