# Session 11, device call 3 (nvidia-h200, one GPU): the v13 tree (direct launches, delta in
# the dQ kernel), autotuned as a user gets it.
# 1. The README's speed table (sparseflash, Flex, cuDNN; D=64 and 128, N=16K).
# 2. Per-kernel GPU time at D=128, old tree (fa5bac2) and new, autotuned: does computing
#    delta inside dQ cost the D=128 backward (call 2, fixed tiles: dense dQ +8%)?
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s11 call 3 (benchmarks/sessions/s11-call3.sh), alone on the GPU"
done
old ab-old python $NEW/benchmarks/sessions/s10_ab.py --label old --head-dims 128 --out $RES/ab-old.json
step ab-new python benchmarks/sessions/s10_ab.py --label new --head-dims 128 --out $RES/ab-new.json
pack
