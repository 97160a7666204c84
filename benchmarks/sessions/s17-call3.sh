# Session 17, device call 3 (nvidia-h200, one GPU): the Gluon dK/dV kernel in the library.
# 1. Its GPU tests (forced at both head dims) and the choice tests.
# 2. The A/B inside launch.backward (s17_dkdv_ab.py), both head dims, five patterns.
# 3. The README's D=128 table with the new default (Gluon dK/dV at D=128).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gluon-bwd-tests python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py::test_gluon_backward_against_float64 \
    tests/test_gpu.py::test_gluon_backward_choice tests/test_gpu.py::test_gluon_forward_choice
step dkdv-ab python benchmarks/sessions/s17_dkdv_ab.py
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step table-d128 python -m benchmarks.attention --seq-lens 16384 --head-dims 128 \
    --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods sparseflash flex sdpa-cudnn --out $RES/table-d128.json \
    --note "s17 call 3 (benchmarks/sessions/s17-call3.sh): Gluon dK/dV at D=128, alone on the GPU"
pack
