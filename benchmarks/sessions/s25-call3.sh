# Session 25, device call 3 (nvidia-h200, one GPU): the final tree's Gluon GPU tests (ping-pong,
# serial Gluon forward, Gluon dK/dV, fused backward). Their kernels' normalised PTX is that of
# the GPU-tested session-24 kernels (the partitions dropped unused arguments); the launch path
# around them changed (layouts prepared, the padding placeholder).
source benchmarks/sessions/common.sh
step gluon-tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "pingpong or gluon or fused"
pack
