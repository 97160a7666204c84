# Session 12, device call 5 (nvidia-h200, one GPU), the final tree.
# 1. The A/B at D=128 again, with the autotuner's picks printed (calls 3 and 4: causal dK/dV
#    +5-7% and dense dQ +3% slower, every other D=128 row faster).
# 2. The README's speed table on this tree (the README takes this call's table).
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
old ab-old python $NEW/benchmarks/sessions/s10_ab.py --label old --head-dims 128 --out $RES/ab-old.json
step ab-new python benchmarks/sessions/s10_ab.py --label new --head-dims 128 --out $RES/ab-new.json
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s12 call 5 (benchmarks/sessions/s12-call5.sh), alone on the GPU"
done
pack
