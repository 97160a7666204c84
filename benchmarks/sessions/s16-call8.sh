# Session 16, device call 8 (nvidia-h200, one GPU): the D=64 dense and causal rows at
# N = 4K and 64K with the Gluon forward (the speed-vs-N plot's other points).
source benchmarks/sessions/common.sh
for n in 4096 65536; do
  step sweep-n$n python -m benchmarks.attention --seq-lens $n --head-dims 64 \
      --dtypes bfloat16 --patterns dense causal --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/sweep-n$n.json \
      --note "s16 call 8 (benchmarks/sessions/s16-call8.sh), alone on the GPU"
done
pack
