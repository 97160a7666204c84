# Session 16, device call 9 (nvidia-h200, one GPU): the Gluon forward's output by TMA store.
# 1. tests/test_gpu.py's Gluon tests (fixed tiles).  2. The store A/B.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gluon-tests python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py::test_gluon_forward_against_float64 \
    tests/test_gpu.py::test_gluon_forward_direct_launch \
    tests/test_gpu.py::test_gluon_forward_choice
step store-ab python benchmarks/sessions/s16_store_ab.py
pack
