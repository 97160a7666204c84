# Session 9, device call 4 (nvidia-h200, one GPU). The tree after call 3 with the backward
# change reverted (it was slower at D=128, and dK came out wrong in the causal D=128 GPU
# tests): only the forward walks consecutive runs with computed offsets.
# 1. tests/test_gpu.py on this tree.
# 2. The README's speed table (sparseflash, Flex, cuDNN; D=64 and 128, N=16K).
# 3. N = 64K for the speed-vs-N plot, as far as the budget goes.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s9 call 4 (benchmarks/sessions/s9-call4.sh), alone on the GPU"
done
step sweep-n65536 python -m benchmarks.attention --seq-lens 65536 --head-dims 64 128 \
    --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
    --out $RES/sweep-n65536.json --note "s9 call 4 (benchmarks/sessions/s9-call4.sh), alone on the GPU"
pack
