# Session 19, device call 7 (nvidia-h200, one GPU): after the column prologue and the dK/dV
# store became shared helpers of hopper_backward (_column, store_dkdv; the fused kernel's
# PTX unchanged, the dK/dV kernel's the same but for instruction order, same registers and
# spills under ptxas): the Gluon backward, fused and deterministic GPU tests, and the
# fused-against-two-kernels A/B again.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "gluon_backward or fused or deterministic"
step ab python benchmarks/sessions/s19_fused_ab.py
pack
