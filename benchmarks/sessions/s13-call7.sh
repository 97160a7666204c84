# Session 13, device call 7 (nvidia-h200, one GPU): two dK/dV candidate tiles more,
# 32x128 with 8 warps (3 and 2 stages): locally compiled (sm_90, Triton 3.6) 167 registers
# and no spill at D=64 on transposed scores, where the 4-warp 32x128 (the dense pick) has
# 255 and spills 56 bytes; 253 and no spill at D=128.
# 1. tests/test_gpu.py (fixed tiles), now with every candidate tile forced in turn.
# 2. Per-kernel A/B against the tree before (.carry/old-tree.tar), D=64 and 128, both
#    trees twice, alternating, every process tuning afresh.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
export SPARSEFLASH_AUTOTUNE_CACHE=0
for r in 1 2; do
  old ab-old-$r python $NEW/benchmarks/sessions/s10_ab.py --label old --head-dims 64 128 \
      --out $RES/ab-old-$r.json
  step ab-new-$r python benchmarks/sessions/s10_ab.py --label new --head-dims 64 128 \
      --out $RES/ab-new-$r.json
done
pack
