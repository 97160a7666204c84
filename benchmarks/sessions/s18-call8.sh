# Session 18, device call 8 (nvidia-h100-x1): what call 7 ran out of time for (the D=128
# peers, benchmarks.overhead), and the D=64 sparseflash rows again: call 7 had local(3)
# fwd+bwd at 237 TFLOP/s against 398 forward.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step peers-d128 python -m benchmarks.attention --seq-lens 16384 --head-dims 128 \
    --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods flex sdpa-cudnn --out $RES/peers-d128.json \
    --note "s18 call 8 (benchmarks/sessions/s18-call8.sh): the peers in their own process"
step sf-d64-again python -m benchmarks.attention --seq-lens 16384 --head-dims 64 \
    --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/sf-d64-again.json \
    --note "s18 call 8 (benchmarks/sessions/s18-call8.sh): sparseflash in its own process, again"
step overhead python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 --head-dim 64 --top 5
step profile python -m benchmarks.profile_call --pattern "local(3)" --seq-len 16384 --head-dim 64
pack
