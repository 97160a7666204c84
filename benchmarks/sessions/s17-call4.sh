# Session 17, device call 4 (nvidia-h200, one GPU): tile and register variants of the Gluon
# dK/dV kernel (s17_dkdv_variants.py), and its GPU tests again after the swizzle change.
source benchmarks/sessions/common.sh
step dkdv-variants python benchmarks/sessions/s17_dkdv_variants.py
SPARSEFLASH_NO_AUTOTUNE=1 step gluon-bwd-tests python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py::test_gluon_backward_against_float64
pack
