# Session 14, device call 5 (nvidia-h100-x1): the final kernels on an H100.
# 1. The README's speed table (sparseflash, Flex, cuDNN; D=64 and 128, N=16K), autotuned.
# 2. tests/test_gpu.py (fixed tiles; every candidate tile forced).
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s14 call 5 (benchmarks/sessions/s14-call5.sh), alone on the GPU"
done
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
pack
