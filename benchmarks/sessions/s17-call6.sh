# Session 17, device call 6 (nvidia-h200, one GPU): the final tree (Gluon dK/dV at D=128, the
# Gluon forward by default but at D=128 with partial blocks).
# 1. The README's speed table, D=64 and 128.  2. tests/test_gpu.py, the whole file.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s17 call 6 (benchmarks/sessions/s17-call6.sh), alone on the GPU"
done
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
pack
