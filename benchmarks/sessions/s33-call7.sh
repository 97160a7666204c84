# Session 33, device call 7: the final tree (the ping-pong forward's item boundaries
# shortened, NOTES v35). Its ping-pong forward's GPU tests against float64 (cases, the D=64
# choice, dropout, CUDA-graph replay), then the README's tables at both head dims,
# sparseflash and the peers in processes of their own, from CUDA graphs (ten patterns)
# and with do_bench's events (the five headline patterns).
source benchmarks/sessions/common.sh
BUDGET=590
BUDGET=200 step gpu-pingpong python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "pingpong_forward_against or d64_forward_choice or pingpong_forward_with_dropout_against or pingpong_forward_replays"
tail -3 $LOGS/gpu-pingpong.log
NOTE="s33 call 7 (benchmarks/sessions/s33-call7.sh)"
graph_tables 128
graph_tables 64
event_tables 128
event_tables 64
grep -h -E "^(sparseflash|flex|sdpa)" $LOGS/sf-d128-graph.log $LOGS/sf-d64-graph.log | head -60
pack
