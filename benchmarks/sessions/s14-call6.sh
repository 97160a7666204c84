# Session 14, device call 6 (nvidia-h100-x1): call 5's table had the H100's dense D=64
# forward at 390 TFLOP/s where session 12's measured 426. Per-kernel A/B at D=64 of this
# tree against session 13's final one (.carry/old-tree.tar), each tuning afresh, twice,
# alternating, with the autotuner's picks printed.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
export SPARSEFLASH_AUTOTUNE_CACHE=0
for r in 1 2; do
  old ab-old-$r python $NEW/benchmarks/sessions/s10_ab.py --label old --head-dims 64 \
      --out $RES/ab-old-$r.json
  step ab-new-$r python benchmarks/sessions/s10_ab.py --label new --head-dims 64 \
      --out $RES/ab-new-$r.json
done
pack
