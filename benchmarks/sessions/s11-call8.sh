# Session 11, device call 8 (nvidia-h200, one GPU): the final tree of session 11.
# 1. tests/test_gpu.py (fixed tiles).
# 2. N = 64K, D = 64 and 128, for the speed-vs-N plot (session 10's points were from the
#    kernels before the dQ kernel took in delta).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step sweep-n65536 python -m benchmarks.attention --seq-lens 65536 --head-dims 64 128 \
    --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
    --out $RES/sweep-n65536.json --note "s11 call 8 (benchmarks/sessions/s11-call8.sh), alone on the GPU"
pack
