# Session 10, device call 5 (nvidia-h200, one GPU). dK/dV: layouts whose columns are all
# consecutive, at D <= 64 and 16-bit, walk them on transposed scores at computed offsets
# (call 4: dK/dV 2-11% faster there, slower at D=128 and on table-walked columns); all
# others keep the untransposed table walk, now with unmasked loads except for each
# column's last listed block (call 3's ladder: masked loads cost 6-18%). Against the tree
# before (.carry/old-tree.tar = b730f3e), per kernel; then the GPU tests (fixed tiles).
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
export TRITON_PRINT_AUTOTUNING=1
old ab-old python $NEW/benchmarks/sessions/s10_ab.py --label old --out $RES/ab-old.json
step ab-new python benchmarks/sessions/s10_ab.py --label new --out $RES/ab-new.json
unset TRITON_PRINT_AUTOTUNING
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
pack
