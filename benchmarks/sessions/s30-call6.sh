# Session 30, device call 6 (an H100): call 5's tests again after the review commit
# (_philox_words shared by both keep-mask paths).
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-dropout python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "dropout or keep_mask or small_blocks"
pack
