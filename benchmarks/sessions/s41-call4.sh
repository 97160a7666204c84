# Session 41, device call 4 (call 3's warm H200): the README's float16 CUDA-graph tables
# (D=64 and 128) on this tree, sparseflash and the peers in processes of their own.
source benchmarks/sessions/common.sh
BUDGET=330
NOTE="s41 call 4 (benchmarks/sessions/s41-call4.sh)"
graph_tables 64 float16
graph_tables 128 float16
grep -h "exit" $LOGS/*float16.log
tar -czf "$OUT/s41c4.tar.gz" -C $WORK results logs
