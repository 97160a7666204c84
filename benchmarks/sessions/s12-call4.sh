# Session 12, device call 4 (nvidia-h200, one GPU): call 3's A/B again with HAS_PARTIAL and
# ROW_RUNS in the autotune key (call 3: causal reused dense's tile, dQ 34% slower), then
# the README's speed table on this tree.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
old ab-old python $NEW/benchmarks/sessions/s10_ab.py --label old --out $RES/ab-old.json
step ab-new python benchmarks/sessions/s10_ab.py --label new --out $RES/ab-new.json
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s12 call 4 (benchmarks/sessions/s12-call4.sh), alone on the GPU"
done
pack
