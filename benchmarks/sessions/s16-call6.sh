# Session 16, device call 6 (nvidia-h200, one GPU): the Gluon forward by default at D=64
# on long rows only (dense, causal), launched through fastlaunch.
# 1. tests/test_gpu.py's Gluon and TMA tests.
# 2. The README's speed table, D=64 and D=128; then the D=64 forward alone through the
#    Triton kernel (SPARSEFLASH_GLUON=0) for the A/B in the same call.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "gluon or tma"
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s16 call 6 (benchmarks/sessions/s16-call6.sh), alone on the GPU"
done
SPARSEFLASH_GLUON=0 step fwd-triton-d64 python -m benchmarks.attention --seq-lens 16384 \
    --head-dims 64 --dtypes bfloat16 --patterns dense causal --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/fwd-triton-d64.json \
    --note "s16 call 6: the Triton forward (SPARSEFLASH_GLUON=0), for the A/B"
pack
