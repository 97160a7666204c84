# Session 14, device call 3 (nvidia-h200, one GPU): per-kernel A/B of this tree against
# session 13's (.carry/old-tree.tar), autotuned, every process tuning afresh. The dQ
# kernel now walks ROW_RUNS layouts' rows at computed offsets only and every other
# layout's through the table (no run walk beside it); "noregs" is this tree with
# SPARSEFLASH_INDEX_REGS=0 (forward and dQ read the table in their loops).
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
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
