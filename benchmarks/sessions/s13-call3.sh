# Session 13, device call 3 (nvidia-h200, one GPU): this session's kernels against session
# 12's final tree (.carry/old-tree.tar): dK/dV's column runs through
# consecutive_run(KNOWN_RUN=True), and the autotuner without the narrow tiles.
# 1. Per-kernel A/B, autotuned, both trees twice, alternating; every process tunes
#    afresh (SPARSEFLASH_AUTOTUNE_CACHE=0: the old tree keeps no picks on disk).
# 2. The README's speed table on this tree, D=64 and 128.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
export SPARSEFLASH_AUTOTUNE_CACHE=0
for r in 1 2; do
  old ab-old-$r python $NEW/benchmarks/sessions/s10_ab.py --label old --head-dims 64 128 \
      --out $RES/ab-old-$r.json
  step ab-new-$r python benchmarks/sessions/s10_ab.py --label new --head-dims 64 128 \
      --out $RES/ab-new-$r.json
done
unset SPARSEFLASH_AUTOTUNE_CACHE
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s13 call 3 (benchmarks/sessions/s13-call3.sh), alone on the GPU"
done
pack
