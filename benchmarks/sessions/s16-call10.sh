# Session 16, device call 10 (nvidia-h200, one GPU): the final kernels (the Gluon forward's
# output by TMA store).
# 1. The README's speed table, D=64 and 128.
# 2. The forward of every pattern forced through the Gluon kernel (SPARSEFLASH_GLUON=1),
#    both head dims, in the same call: what the default leaves on the Triton kernel.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s16 call 10 (benchmarks/sessions/s16-call10.sh), alone on the GPU"
done
SPARSEFLASH_GLUON=1 step gluon-forced python -m benchmarks.attention --seq-lens 16384 \
    --head-dims 64 128 --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/gluon-forced.json \
    --note "s16 call 10: every forward through the Gluon kernel (SPARSEFLASH_GLUON=1)"
pack
