# Session 23, device call 12 (nvidia-h200, one GPU): after the review's test refactor
# (_watch_gluon_kernel), the CUDA-graph test and the ping-pong forward's dense cases.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "replays or (pingpong_forward_against and dense)"
pack
