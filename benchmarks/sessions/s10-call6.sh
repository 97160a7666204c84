# Session 10, device call 6 (nvidia-h200, one GPU). The final tree: the forward through
# tensor descriptors for rows of 16+ blocks (call 1), dK/dV on transposed scores walking
# consecutive columns at computed offsets where every column is consecutive and D <= 64
# (calls 4-5), the table walk exactly as before elsewhere (call 5: the variant with
# unmasked table loads was 8-10% slower at D=128).
# 1. tests/test_gpu.py on this tree (fixed tiles, as in session 9).
# 2. The README's speed table (sparseflash, Flex, cuDNN; D=64 and 128, N=16K).
# 3. N = 4K for the speed-vs-N plot, as far as the budget goes.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s10 call 6 (benchmarks/sessions/s10-call6.sh), alone on the GPU"
done
step sweep-n4096 python -m benchmarks.attention --seq-lens 4096 --head-dims 64 128 \
    --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
    --out $RES/sweep-n4096.json --note "s10 call 6 (benchmarks/sessions/s10-call6.sh), alone on the GPU"
pack
