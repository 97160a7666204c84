# Session 23, device call 7 (nvidia-h200, one GPU): the speed-vs-N points on the final tree
# (persistent ping-pong forward at D=128; fused backward on 128 x 128 tiles at D=64, its
# consumer warp groups as partitions): the README's patterns at N = 1K (B=16), 4K (B=4) and 64K (B=1), sparseflash
# and the peers in processes of their own, and the 1M-token scale rows at D=128.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for n in 1024 4096 65536; do
  step sf-n$n python -m benchmarks.attention --seq-lens $n --head-dims 64 128 \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-n$n.json \
      --note "s23 call 7 (benchmarks/sessions/s23-call7.sh): sparseflash in its own process"
  step peers-n$n python -m benchmarks.attention --seq-lens $n --head-dims 64 128 \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-n$n.json \
      --note "s23 call 7 (benchmarks/sessions/s23-call7.sh): the peers in their own process"
done
step scale-1m-d128 python -m benchmarks.attention --seq-lens 1048576 --tokens 1048576 \
    --heads 16 --head-dims 128 --patterns "local(3)" butterfly --methods sparseflash \
    --out $RES/attention-1m-d128.json \
    --note "s23 call 7 (benchmarks/sessions/s23-call7.sh), alone on the GPU"
pack
