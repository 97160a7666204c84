# Session 21, device call 1 (nvidia-h200, one GPU): the fused backward with each consumer
# warp group a partition of its own (hopper_fused.SPLIT). Its GPU tests (and the other
# Gluon ones), then s21_split_ab.py at D=128: two kernels / fused in lockstep / fused split,
# alternating in one process.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused or deterministic"
step ab-d128 python benchmarks/sessions/s21_split_ab.py
pack
