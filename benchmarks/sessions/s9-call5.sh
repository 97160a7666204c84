# Session 9, device call 5 (nvidia-h200, one GPU): the speed-vs-N plot's N = 1K and 4K
# points on the tree of call 4.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for n in 1024 4096; do
  step sweep-n$n python -m benchmarks.attention --seq-lens $n --head-dims 64 128 \
      --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
      --out $RES/sweep-n$n.json --note "s9 call 5 (benchmarks/sessions/s9-call5.sh), alone on the GPU"
done
pack
