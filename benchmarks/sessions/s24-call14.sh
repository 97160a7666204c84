# Session 24, device call 14: after the consumer wrappers went (warp_specialize calls
# _consume with a literal warp-group number; normalised PTX unchanged under Triton 3.6 and
# 3.9), the ping-pong forward's and the fused backward's float64 GPU tests.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "pingpong_forward_against_float64 or fused"
pack
