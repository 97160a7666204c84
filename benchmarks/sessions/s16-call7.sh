# Session 16, device call 7 (nvidia-h100-x1): the Gluon forward (default at D=64 on long
# rows) on an H100.
# 1. The README's speed table (sparseflash, Flex, cuDNN; D=64 and 128, N=16K), autotuned;
#    then the D=64 dense and causal rows through the Triton forward (SPARSEFLASH_GLUON=0).
# 2. tests/test_gpu.py's Gluon tests (fixed tiles).
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step table-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash flex sdpa-cudnn --out $RES/table-d$d.json \
      --note "s16 call 7 (benchmarks/sessions/s16-call7.sh), alone on the GPU"
done
SPARSEFLASH_GLUON=0 step fwd-triton-d64 python -m benchmarks.attention --seq-lens 16384 \
    --head-dims 64 --dtypes bfloat16 --patterns dense causal --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/fwd-triton-d64.json \
    --note "s16 call 7: the Triton forward (SPARSEFLASH_GLUON=0), for the A/B"
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py::test_gluon_forward_against_float64 \
    tests/test_gpu.py::test_gluon_forward_direct_launch \
    tests/test_gpu.py::test_gluon_forward_choice \
    tests/test_gpu.py::test_triton_forward_at_d64_against_float64
pack
