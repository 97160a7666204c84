# Session 14, device call 2 (nvidia-h200, one GPU). Call 1's GPU tests failed the forced
# dK/dV tiles with BLOCK_M = 32 on butterfly at N = 1000 (dk only). The dK/dV kernel is
# back to session 13's code; the forward and dQ keep the register indices and the dQ run
# walk.
# 1. s14_probe_bfly.py on this tree and on session 13's (.carry/old-tree.tar): is the dk
#    error new?
# 2. tests/test_gpu.py on this tree.
# 3. Per-kernel A/B, old and new, every process tuning afresh.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
step probe-new python benchmarks/sessions/s14_probe_bfly.py
old probe-old python $NEW/benchmarks/sessions/s14_probe_bfly.py
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider \
    --durations=10 tests/test_gpu.py
export SPARSEFLASH_AUTOTUNE_CACHE=0
old ab-old-1 python $NEW/benchmarks/sessions/s10_ab.py --label old --head-dims 64 128 \
    --out $RES/ab-old-1.json
step ab-new-1 python benchmarks/sessions/s10_ab.py --label new --head-dims 64 128 \
    --out $RES/ab-new-1.json
pack
