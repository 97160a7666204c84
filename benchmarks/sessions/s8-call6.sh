# Session 8, device call 6 (nvidia-h200, one GPU): why fp16 sparse rows ran slower than
# bf16 in call 5 (D=64 forward: local(3) 241 vs 305, random+global 125 vs 260 TFLOP/s).
# 1. Both dtypes in one process, the autotuner's picks printed; per-kernel GPU time of
#    local(3) and random+global in each dtype.
# 2. The fp16 D=128 rows call 5 did not reach (sparseflash, Flex, cuDNN).
source benchmarks/sessions/common.sh
SPARSE=("local(3)" butterfly "local(1) | global(1) | random(2)")
TRITON_PRINT_AUTOTUNING=1 step fp16-vs-bf16 python -m benchmarks.attention --seq-lens 16384 \
    --head-dims 64 --dtypes float16 bfloat16 --patterns "${SPARSE[@]}" --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/fp16-vs-bf16.json --note "s8 call 6, alone on the GPU"
for dtype in float16 bfloat16; do
  for pattern in "local(3)" "local(1) | global(1) | random(2)"; do
    step "prof-$dtype-${pattern:0:5}" python -m benchmarks.profile_call --pattern "$pattern" \
        --seq-len 16384 --head-dim 64 --dtype $dtype
  done
done
step fp16-d128 python -m benchmarks.attention --seq-lens 16384 --head-dims 128 --dtypes float16 \
    --patterns dense causal "${SPARSE[@]}" --methods sparseflash flex sdpa-cudnn \
    --out $RES/fp16-d128.json --note "s8 call 6, alone on the GPU"
pack
