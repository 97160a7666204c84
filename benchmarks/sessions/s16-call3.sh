# Session 16, device call 3 (nvidia-h200, one GPU): the Gluon forward by default at D=64.
# 1. tests/test_gpu.py (fixed tiles), which now runs the D=64 cases through Gluon.
# 2. The README's speed table, D=64 and 128 (D=128 kernels unchanged: the same run).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s16 call 3 (benchmarks/sessions/s16-call3.sh), alone on the GPU"
done
pack
