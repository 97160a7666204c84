# Session 21, device call 4 (nvidia-h200, one GPU): call 3's table had random+global at
# D=64 at 1.003 ms fwd+bwd (0.710 in session 20, whose kernels for it are unchanged but
# for the fused backward, measured at 0.534 ms in call 2). Two more processes of the
# library's rows at D=64, one at D=128, then that row's kernel times and host time.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for run in a b; do
  step sf-d64-$run python -m benchmarks.attention --seq-lens 16384 --head-dims 64 \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d64-$run.json \
      --note "s21 call 4 (benchmarks/sessions/s21-call4.sh): sparseflash, run $run"
done
step sf-d128 python -m benchmarks.attention --seq-lens 16384 --head-dims 128 \
    --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/sf-d128.json \
    --note "s21 call 4 (benchmarks/sessions/s21-call4.sh): sparseflash, second run"
RG="local(1) | global(1) | random(2)"
step profile-rg python -m benchmarks.profile_call --pattern "$RG" --head-dim 64
step overhead-rg python -m benchmarks.overhead --pattern "$RG" --seq-len 16384 --head-dim 64
pack
