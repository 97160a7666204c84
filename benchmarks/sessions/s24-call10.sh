# Session 24, device call 10 (nvidia-h200, one GPU): the final tree's Gluon, fused-backward
# and float64 GPU tests (the ping-pong ones passed in calls 1 and 7, the CUDA-graph ones in
# call 9).
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "(gluon or fused or against_float64) and not pingpong"
pack
