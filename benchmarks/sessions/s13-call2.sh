# Session 13, device call 2 (nvidia-h200, one GPU): the final cold-start tree (candidates
# compiled in parallel only for keys the autotuner times; tiles with both sides under 64
# left out at block 128).
# 1. tests/test_gpu.py (fixed tiles), with the parallel-compile test's ordering fixed.
# 2. benchmarks/cold_start.py, D=64 and 128, empty Triton cache, then again on its cache.
# 3. N = 64K, D = 64 and 128 (the speed-vs-N plot's points were session 11's kernels).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
for d in 64 128; do
  rm -rf /tmp/tc-new-$d
  step cold-new-d$d env TRITON_CACHE_DIR=/tmp/tc-new-$d python benchmarks/cold_start.py \
      --head-dims $d --label "new tree (pruned), empty cache" --out $RES/cold-new-d$d.json
  step cold-new-again-d$d env TRITON_CACHE_DIR=/tmp/tc-new-$d python benchmarks/cold_start.py \
      --head-dims $d --label "new tree (pruned), the cache of the run before" \
      --out $RES/cold-new-again-d$d.json
done
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step sweep-n65536 python -m benchmarks.attention --seq-lens 65536 --head-dims 64 128 \
    --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
    --out $RES/sweep-n65536.json --note "s13 call 2 (benchmarks/sessions/s13-call2.sh), alone on the GPU"
pack
