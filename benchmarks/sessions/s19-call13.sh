# Session 19, device call 13 (nvidia-h200, one GPU): the fused backward at D=64 on 64 x 64
# tiles, 4 consumer warps, two programs an SM (hopper_fused.TILES), now that LSE and delta
# come through shared memory. Its GPU tests (the fused cases run forced at D=64 too), then
# s19_fused_ab.py at D=64 and D=128 (two kernels against fused), two rounds each.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused"
step ab-d64 python benchmarks/sessions/s19_fused_ab.py --quick --head-dim 64
step ab-d128 python benchmarks/sessions/s19_fused_ab.py --quick
pack
