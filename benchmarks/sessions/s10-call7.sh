# Session 10, device call 7 (nvidia-h200, one GPU): the final tree (as in call 6) at
# N = 64K and 1K for the speed-vs-N plot, as far as the budget goes.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for n in 65536 1024; do
  step sweep-n$n python -m benchmarks.attention --seq-lens $n --head-dims 64 128 \
      --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
      --out $RES/sweep-n$n.json --note "s10 call 7 (benchmarks/sessions/s10-call7.sh), alone on the GPU"
done
pack
