# Session 24, device call 6 (nvidia-h200, one GPU): the D=128 speed-vs-N points on the
# split K/V rings (the D=64 kernels are session 23's, whose points stand): the README's
# patterns at N = 1K (B=16), 4K (B=4) and 64K (B=1), sparseflash and the peers in
# processes of their own, and the 1M-token scale rows at D=128.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for n in 1024 4096 65536; do
  step sf-n$n python -m benchmarks.attention --seq-lens $n --head-dims 128 \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-n$n.json \
      --note "s24 call 6 (benchmarks/sessions/s24-call6.sh): sparseflash in its own process"
  step peers-n$n python -m benchmarks.attention --seq-lens $n --head-dims 128 \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-n$n.json \
      --note "s24 call 6 (benchmarks/sessions/s24-call6.sh): the peers in their own process"
done
step scale-1m-d128 python -m benchmarks.attention --seq-lens 1048576 --tokens 1048576 \
    --heads 16 --head-dims 128 --patterns "local(3)" butterfly --methods sparseflash \
    --out $RES/attention-1m-d128.json \
    --note "s24 call 6 (benchmarks/sessions/s24-call6.sh), alone on the GPU"
pack
