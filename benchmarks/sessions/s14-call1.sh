# Session 14, device call 1 (nvidia-h200, one GPU): table walks with their block indices
# in registers (INDEX_REGS), the dQ kernel walking consecutive rows at computed offsets
# (ROW_RUNS), and dK/dV's column runs untransposed at D=128, against session 13's final
# tree (.carry/old-tree.tar).
# 1. tests/test_gpu.py on this tree (fixed tiles; every candidate tile forced on a causal
#    and a butterfly layout).
# 2. Per-kernel A/B, autotuned, every process tuning afresh: old, new, and new with
#    SPARSEFLASH_INDEX_REGS=0 (the run walks without the register indices), twice,
#    alternating.
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
  SPARSEFLASH_INDEX_REGS=0 step ab-noregs-$r python benchmarks/sessions/s10_ab.py \
      --label noregs --head-dims 64 128 --out $RES/ab-noregs-$r.json
done
pack
