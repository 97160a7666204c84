# Session 16, device call 11 (nvidia-h100-x1): the final kernels on an H100 (the Gluon
# forward's output by TMA store): the README's table, D=64 and 128, then the D=64 dense and
# causal rows through the Triton forward (SPARSEFLASH_GLUON=0) in the same call.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s16 call 11 (benchmarks/sessions/s16-call11.sh), alone on the GPU"
done
SPARSEFLASH_GLUON=0 step fwd-triton-d64 python -m benchmarks.attention --seq-lens 16384 \
    --head-dims 64 --dtypes bfloat16 --patterns dense causal --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/fwd-triton-d64.json \
    --note "s16 call 11: the Triton forward (SPARSEFLASH_GLUON=0), for the A/B"
pack
