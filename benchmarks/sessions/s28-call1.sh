# Session 28, device call 1 (an H100): dropout in the fused Gluon backward. The keep mask
# the Gluon draws give against the Triton kernels', the fused backward with dropout against
# float64 (and the choice tests), then the dropout probe on the paper's E.6 shape and on
# short rows (fused against the two Triton kernels, no dropout, cuDNN), then the fused
# backward's cases without dropout (its kernel gained arguments).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-dropout python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "keep_mask or fused_backward_with_dropout or fused_backward_choice"
step probe-e6 python benchmarks/sessions/s28_dropout_probe.py --shape e6 --rounds 2
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-fused python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused_backward_against"
step probe-short python benchmarks/sessions/s28_dropout_probe.py --shape short --rounds 1
pack
