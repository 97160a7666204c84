# Session 28, device call 4 (an H100): the fused backward's draws split in two, half of a
# tile's while its S^T and dP^T products run, half during the last tile's dQ and dK (call
# 2 drew all of the next tile's during dQ and dK, where both warp groups draw at once).
# The dropout tests, then the probe on both shapes.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-dropout python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "keep_mask or fused_backward_with_dropout"
step probe python benchmarks/sessions/s28_dropout_probe.py --shape e6 short --rounds 1
pack
