# Session 16, device call 4 (nvidia-h200, one GPU): the Gluon forward launched past
# Triton's argument binding (fastlaunch), as the Triton kernels are.
# 1. tests/test_gpu.py's Gluon and TMA tests (the direct launch among them).
# 2. The README's D=64 table again; then the forward alone with the Triton kernel
#    (SPARSEFLASH_GLUON=0) in the same call, for the A/B.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "gluon or tma or d64"
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step table-d64 python -m benchmarks.attention --seq-lens 16384 --head-dims 64 \
    --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods sparseflash flex sdpa-cudnn --out $RES/table-d64.json \
    --note "s16 call 4 (benchmarks/sessions/s16-call4.sh), alone on the GPU"
SPARSEFLASH_GLUON=0 step fwd-triton-d64 python -m benchmarks.attention --seq-lens 16384 \
    --head-dims 64 --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd \
    --methods sparseflash --out $RES/fwd-triton-d64.json \
    --note "s16 call 4: the Triton forward (SPARSEFLASH_GLUON=0), for the A/B"
pack
