# Session 33, device call 9 (an H100): the D=128 CUDA-graph table with session 33's
# ping-pong forward (ten patterns), sparseflash and the peers in separate processes, as
# s31-call3.sh ran it; then, with the time left, the ping-pong forward's first cases
# against float64 on this GPU.
source benchmarks/sessions/common.sh
BUDGET=240
NOTE="s33 call 9 (benchmarks/sessions/s33-call9.sh)"
graph_tables 128
grep -h -E "^(sparseflash|flex|sdpa)" $LOGS/sf-d128-graph.log $LOGS/peers-d128-graph.log | head -60
step gpu-pingpong python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "pingpong_forward_against"
tail -3 $LOGS/gpu-pingpong.log
pack
