# Session 27, device call 6 (an H100): the ping-pong forward tests trailing padding by key
# position (Layout.padding_limits' new last column) instead of reading the mask's bytes in
# the tile that reaches it. The padding probe again (call 2 read padded D=128 forwards
# 3-5% over unpadded), then the padded GPU cases and the default paths' float64 cases.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step probe-b python benchmarks/sessions/s27_probe.py b
step gpu-padded python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "((gluon_forward_against or pingpong or fused_backward_against) and (pad or holes or empty)) or test_against_float64"
pack
