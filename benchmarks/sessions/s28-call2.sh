# Session 28, device call 2 (an H100): the fused backward's dropout after call 1, with
# Philox's products as 32 x 32 -> 64-bit multiplies and the 16-bit draws stored as drawn
# (one 16-byte store a call; the reader compares them with the threshold). The keep-mask
# and dropout tests again, then the probe on both shapes.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-dropout python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "keep_mask or fused_backward_with_dropout"
step probe python benchmarks/sessions/s28_dropout_probe.py --shape e6 short --rounds 1
pack
