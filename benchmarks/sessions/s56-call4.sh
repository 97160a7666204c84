# Session 56, device call 4: the README's CUDA-graph table in float16 at D=64 and D=128 on
# the final kernels (session 51's, on session 49's kernels, was the last).
source benchmarks/sessions/common.sh
BUDGET=420
NOTE="s56 call 4 (benchmarks/sessions/s56-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
graph_tables 64 float16
graph_tables 128 float16
grep -h "exit" $LOGS/*.log
pack
