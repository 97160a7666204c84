# Session 10, device call 2 (nvidia-h200, one GPU): the dK/dV kernel on transposed scores
# walking consecutive column runs at computed offsets, and the forward through tensor
# descriptors for long rows by default (call 1's probe), against the tree before
# (.carry/old-tree.tar = 38da5a4's kernels), per kernel; then the GPU tests; then a
# second A/B round if time is left.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
old ab-old-1 python $NEW/benchmarks/sessions/s10_ab.py --label old --out $RES/ab-old-1.json
step ab-new-1 python benchmarks/sessions/s10_ab.py --label new --out $RES/ab-new-1.json
step gpu-tests python -m pytest -q tests/test_gpu.py
old ab-old-2 python $NEW/benchmarks/sessions/s10_ab.py --label old --out $RES/ab-old-2.json
step ab-new-2 python benchmarks/sessions/s10_ab.py --label new --out $RES/ab-new-2.json
pack
