# Session 30, device call 5 (an H100): the final tree's GPU tests with dropout in their
# names, the keep-mask tests and the small-block cases.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-dropout python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "dropout or keep_mask or small_blocks"
step cpu-files-dropout python -m pytest -q -p no:cacheprovider tests/test_dropout.py
pack
