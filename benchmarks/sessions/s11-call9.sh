# Session 11, device call 9 (nvidia-h200, one GPU): the final tree, after the direct
# launch learned to fall back to Triton when a launcher refuses its arguments.
# 1. tests/test_gpu.py (fixed tiles).  2. Host time with direct launches on and off.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
step host python benchmarks/sessions/s11_host_ab.py --label final --direct-switch
pack
