# Session 37, device call 2 (an H100): the README's CUDA-graph tables (bfloat16, D=128 and
# 64, sparseflash and the peers in processes of their own) on the tree with the backward's
# launches chained by programmatic dependent launch and the split columns' dK and dV
# summed in one launch (call 1: race check, A/B and 57 GPU tests passed).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s37 call 2 (benchmarks/sessions/s37-call2.sh)"
graph_tables 128
graph_tables 64
grep -h "exit" $LOGS/*.log
pack
