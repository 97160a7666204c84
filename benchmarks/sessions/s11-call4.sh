# Session 11, device call 4 (nvidia-h200, one GPU): the final v13 tree (call 3's, with the
# dropout lines of the dK/dV tile in one helper).
# 1. tests/test_gpu.py (fixed tiles).
# 2. N = 1K and 4K, D = 64 and 128, for the speed-vs-N plot: the lengths where the host
#    path sets the pace.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for n in 1024 4096; do
  step sweep-n$n python -m benchmarks.attention --seq-lens $n --head-dims 64 128 \
      --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
      --out $RES/sweep-n$n.json --note "s11 call 4 (benchmarks/sessions/s11-call4.sh), alone on the GPU"
done
pack
