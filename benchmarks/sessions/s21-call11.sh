# Session 21, device call 11 (nvidia-h100-x1, one GPU): the README's H100 table on the
# final tree (call 10's: the split rows' kernels pipelined), sparseflash and the peers in
# separate processes, then the library's D=64 rows again in a second process.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s21 call 11 (benchmarks/sessions/s21-call11.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s21 call 11 (benchmarks/sessions/s21-call11.sh): the peers in their own process"
done
step sf-d64-again python -m benchmarks.attention --seq-lens 16384 --head-dims 64 \
    --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/sf-d64-again.json \
    --note "s21 call 11 (benchmarks/sessions/s21-call11.sh): sparseflash, second process"
pack
