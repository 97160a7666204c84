# Session 13, device call 4 (nvidia-h200, one GPU): dK/dV without its masked tail walk
# when every column is a run and N is a multiple of the block (EVEN_N; locally compiled,
# 64x64/w4/s3 at D=64: 242 -> 210 registers; the dense pick 32x128/w4/s3: 56 -> 32
# spilled bytes), against the tree before it (.carry/old-tree.tar, this session's).
# 1. tests/test_gpu.py (fixed tiles), with a causal D=64 case at N = 1000 (the tail walk).
# 2. Per-kernel A/B at D=64 (COLUMN_RUNS only applies there), both trees twice,
#    alternating, every process tuning afresh.
# 3. The README table's D=64 half on this tree.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
export SPARSEFLASH_AUTOTUNE_CACHE=0
for r in 1 2; do
  old ab-old-$r python $NEW/benchmarks/sessions/s10_ab.py --label old --head-dims 64 \
      --out $RES/ab-old-$r.json
  step ab-new-$r python benchmarks/sessions/s10_ab.py --label new --head-dims 64 \
      --out $RES/ab-new-$r.json
done
unset SPARSEFLASH_AUTOTUNE_CACHE
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step table-d64 python -m benchmarks.attention --seq-lens 16384 --head-dims 64 \
    --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods sparseflash flex sdpa-cudnn --out $RES/table-d64.json \
    --note "s13 call 4 (benchmarks/sessions/s13-call4.sh), alone on the GPU"
pack
