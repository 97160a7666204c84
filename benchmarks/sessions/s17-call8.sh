# Session 17, device call 8 (nvidia-h200, one GPU): the README's D=64 table again (call 6's
# D=64 short rows were host-bound outliers: call 7 measured the same kernels at 2x).
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step table-d64 python -m benchmarks.attention --seq-lens 16384 --head-dims 64 \
    --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods sparseflash flex sdpa-cudnn --out $RES/table-d64.json \
    --note "s17 call 8 (benchmarks/sessions/s17-call8.sh), alone on the GPU"
pack
