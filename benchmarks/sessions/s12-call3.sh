# Session 12, device call 3 (nvidia-h200, one GPU): the kernels compiled without the walks
# and branches a layout cannot use (ROW_RUNS, HAS_PARTIAL, HAS_SPLITS), against the tree
# before (.carry/old-tree.tar, session 11's kernels).
# 1. tests/test_gpu.py on the new tree (fixed tiles).  2. Per-kernel A/B, autotuned.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
old ab-old python $NEW/benchmarks/sessions/s10_ab.py --label old --out $RES/ab-old.json
step ab-new python benchmarks/sessions/s10_ab.py --label new --out $RES/ab-new.json
pack
