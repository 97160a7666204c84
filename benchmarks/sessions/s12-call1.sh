# Session 12, device call 1 (nvidia-h200, one GPU).
# 1. tests/test_gpu.py on the tree session 11 ended with (its last commit changed the dK/dV
#    kernel's source and was not run on a GPU).  2. The persistent-forward probe.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
step persistent python benchmarks/sessions/s12_persistent_probe.py --seq-len 16384
pack
