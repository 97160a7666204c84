# Session 21, device call 7 (nvidia-h200, one GPU): the fused backward's dK and dV by TMA
# stores through free shared buffers (hopper_fused.TMA_STORE). Its GPU tests (a new case
# with key columns that no query reads), then s21_store_ab.py at D=128 and D=64: two
# kernels / fused with pointer stores / fused with TMA stores, alternating in one process.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused or deterministic"
step ab-d128 python benchmarks/sessions/s21_store_ab.py
step ab-d64 python benchmarks/sessions/s21_store_ab.py --head-dim 64
pack
