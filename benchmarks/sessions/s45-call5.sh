# Session 45, device call 5: the bf16 D=128 CUDA-graph table on the tree whose persistent
# forward fills its last wave too (call 3's ran before it).
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s45 call 5 (benchmarks/sessions/s45-call5.sh)"
graph_tables 128
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s45c5.tar.gz" -C $WORK results logs
