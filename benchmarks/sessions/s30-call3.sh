# Session 30, device call 3 (an H100): the new small-block dropout tests on the tree
# before the fix (old-s30.tar: that tree's package with this tree's tests/test_gpu.py),
# which should fail; then the tile sweep on float32 inputs.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
old_tree old-s30.tar
old old-small python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k small_blocks_with_dropout
step sweep-fp32 python benchmarks/sessions/s30_tile_sweep.py --workers 8 --float32
pack
