# Session 13, device call 8 (nvidia-h200, one GPU): the final tree (call 7's extra dK/dV
# tiles taken out again: one of them failed the float16 check as the fixed tile).
# tests/test_gpu.py (fixed tiles), with every candidate tile forced in turn in float16
# and bfloat16.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
pack
