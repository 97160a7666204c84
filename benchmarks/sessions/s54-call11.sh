# Session 54, device call 11: the README's CUDA-graph table (both head dims, bf16) on the
# final tree (the own D=64 forward refilling under the score product, call 10).
source benchmarks/sessions/common.sh
BUDGET=400
NOTE="s54 call 11 (benchmarks/sessions/s54-call11.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
graph_tables 64
graph_tables 128
grep -h "exit" $LOGS/*.log
pack
