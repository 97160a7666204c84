# Session 30, device call 2 (an H100): dropout_keep draws per key on tiles under 32
# (call 1: every 16 x 16 tile wrong with dropout); the new GPU tests, then call 1's sweep
# again with fewer workers (call 1 ran out of GPU memory on 14) and layout blocks 16, 32.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-small python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "small_blocks_with_dropout or keep_mask_on_the_gpu or gluon_keep_mask or triton_dkdv_with_dropout"
step sweep python benchmarks/sessions/s30_tile_sweep.py --workers 8
pack
