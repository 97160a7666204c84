# Session 11, device call 7 (nvidia-h200, one GPU): three more dK/dV candidate tiles with
# 8 warps ((128, 64, 8, 2), (64, 64, 8, 3), (64, 64, 8, 2); local compile with Triton 3.6
# at D=128: 181 KB of shared memory and 8 bytes of spills for the first, 44-64 for the
# others, against 168-172 for today's 64x64 4-warp picks).
# 1. The new tiles forced, against float64 (tests/test_gpu.py -k eight_warp).
# 2. Per-kernel GPU times, autotuned, old tree (this session's before the change) and new.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
step tiles python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k eight_warp
old ab-old python $NEW/benchmarks/sessions/s10_ab.py --label old --out $RES/ab-old.json
step ab-new python benchmarks/sessions/s10_ab.py --label new --out $RES/ab-new.json
pack
