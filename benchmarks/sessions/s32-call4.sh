# Session 32, device call 4 (an H200): the D=64 forward's new choice (the ping-pong kernel
# for layouts with partial blocks and long rows, causal among them). Its GPU tests (the
# choice against float64, the ping-pong forward's cases), then the README's D=64 tables
# again, sparseflash and the peers in separate processes, from CUDA graphs (ten patterns)
# and with do_bench's events (the five headline patterns), as s31-call2.sh ran them.
source benchmarks/sessions/common.sh
BUDGET=560
BUDGET=150 step gpu-d64-choice python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "d64_forward_choice or pingpong_forward_against or pingpong_forward_programs"
tail -3 $LOGS/gpu-d64-choice.log
NOTE="s32 call 4 (benchmarks/sessions/s32-call4.sh)"
graph_tables 64
event_tables 64
grep -h -E "^(sparseflash|flex|sdpa)" $LOGS/sf-d64-graph.log $LOGS/peers-d64-graph.log | head -60
pack
