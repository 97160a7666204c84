# Session 12, device call 6 (nvidia-h100-x1): the first run on an H100.
# 1. tests/test_gpu.py (fixed tiles).  2. The README's speed table (sparseflash, Flex,
#    cuDNN; D=64 and 128, N=16K), autotuned, as on the H200.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s12 call 6 (benchmarks/sessions/s12-call6.sh), alone on the GPU"
done
pack
