# Session 44, device call 5: the float16 CUDA-graph tables at both head dims on this tree
# (session 43's ran on the tree before the written-out arguments), with the budget left.
source benchmarks/sessions/common.sh
BUDGET=440
NOTE="s44 call 5 (benchmarks/sessions/s44-call5.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
graph_tables 64 float16
graph_tables 128 float16
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s44c5.tar.gz" -C $WORK results logs
