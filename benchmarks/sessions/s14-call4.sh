# Session 14, device call 4 (nvidia-h200, one GPU): the final kernels (the forward's table
# walk with its indices in registers, the dQ kernel's run walk).
# 1. tests/test_gpu.py (fixed tiles; every candidate tile forced on causal and butterfly).
# 2. The README's speed table, D=64 and 128.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s14 call 4 (benchmarks/sessions/s14-call4.sh), alone on the GPU"
done
pack
