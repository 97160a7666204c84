# Session 24, device call 4 (nvidia-h200, one GPU; it came up on a fresh machine, not call
# 3's, whose process had the
# short D=64 fwd+bwd rows at 0.82-0.87 ms of wall time against 0.35-0.62 ms of kernels.
# Where the host time goes on this machine (benchmarks.overhead, D=64 and 128, with its
# cProfile), and the README's D=64 sparseflash rows again in a process of their own.
source benchmarks/sessions/common.sh
for d in 64 128; do
  step overhead-d$d python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 \
      --head-dim $d --iters 40 --top 40
done
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step sf-d64-again python -m benchmarks.attention --seq-lens 16384 --head-dims 64 \
    --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/sf-d64-again.json \
    --note "s24 call 4 (benchmarks/sessions/s24-call4.sh): sparseflash in its own process, a second time"
pack
