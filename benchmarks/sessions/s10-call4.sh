# Session 10, device call 4 (nvidia-h200, one GPU): the dK/dV kernel on transposed scores,
# walking consecutive column runs with unmasked loads (masked loads cost call 3's ladder
# 6-18%), against the tree before (.carry/old-tree.tar = b730f3e: table walk, untransposed;
# both with the forward through descriptors for long rows), per kernel, the autotuner's
# picks printed; then the GPU tests on this tree (fixed tiles, as in session 9).
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
export TRITON_PRINT_AUTOTUNING=1
old ab-old python $NEW/benchmarks/sessions/s10_ab.py --label old --out $RES/ab-old.json
step ab-new python benchmarks/sessions/s10_ab.py --label new --out $RES/ab-new.json
unset TRITON_PRINT_AUTOTUNING
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
pack
