# Session 18, device call 6 (nvidia-h200, one GPU): the README's patterns at N = 1K (B=16)
# and 4K (B=4), where every call is short and the host path decides most rows: sparseflash
# in a process of its own, then the peers (as s18-call5.sh), for the speed-vs-N plot.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for n in 1024 4096; do
  step sf-n$n python -m benchmarks.attention --seq-lens $n --head-dims 64 128 \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-n$n.json \
      --note "s18 call 6 (benchmarks/sessions/s18-call6.sh): sparseflash in its own process"
  step peers-n$n python -m benchmarks.attention --seq-lens $n --head-dims 64 128 \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-n$n.json \
      --note "s18 call 6 (benchmarks/sessions/s18-call6.sh): the peers in their own process"
done
step overhead-n1024 python -m benchmarks.overhead --pattern "local(3)" --seq-len 1024 --head-dim 64 --top 5
pack
