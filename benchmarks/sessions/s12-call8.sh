# Session 12, device call 8 (nvidia-h200, one GPU): the final tree at N = 1K and 4K,
# D = 64 and 128, for the speed-vs-N plot (short rows everywhere: where v14 should show).
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for n in 1024 4096; do
  step sweep-n$n python -m benchmarks.attention --seq-lens $n --head-dims 64 128 \
      --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
      --out $RES/sweep-n$n.json --note "s12 call 8 (benchmarks/sessions/s12-call8.sh), alone on the GPU"
done
pack
