# Session 28, device call 5: the final fused backward with dropout (draws split in two at
# D=64, all during dQ and dK at D=128: calls 2 and 4). The dropout tests, the choice
# tests, then the probe on both shapes, two rounds.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-dropout python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "keep_mask or fused_backward_with_dropout or fused_backward_choice"
step probe python benchmarks/sessions/s28_dropout_probe.py --shape e6 short --rounds 2
pack
