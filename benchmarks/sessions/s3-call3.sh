# Session 3, device call 3 (nvidia-h200, one GPU): the N = 4096, D = 128 rows that the
# bf16 naive reference rejected in call 2; whether the autotuner's picks (printed) are
# stable across processes; and per-kernel time of short sparse fwd+bwd calls.
source benchmarks/sessions/common.sh
export TRITON_PRINT_AUTOTUNING=1
step n4096 python -m benchmarks.attention --seq-lens 4096 --head-dims 128 \
    --patterns butterfly "local(1) | global(1) | random(2)" --methods sparseflash flex \
    --out $RES/attention-n4096-d128.json
for run in 1 2; do
  step repeat-16k python -m benchmarks.attention --seq-lens 16384 --head-dims 64 \
      --patterns "local(3)" butterfly "local(1) | global(1) | random(2)" --methods sparseflash \
      --out $RES/attention-16k-repeat$run.json
done
for case in "butterfly 1024" "local(3) 16384" "local(1) | global(1) | random(2) 4096"; do
  step profile python -m benchmarks.profile_call --pattern "${case% *}" --seq-len "${case##* }"
done
pack
