# Session 40, device call 2 (call 1's warm H200): the README's float16 CUDA-graph tables
# (D=64 and 128) on this tree, sparseflash and the peers in processes of their own.
# Its results were lost: session 40 ended before they were copied into the repository.
# Session 41 ran the same steps again (s41-call3.sh and -call4.sh: the tables; s41-call5.sh:
# the trace).
source benchmarks/sessions/common.sh
BUDGET=400
NOTE="s40 call 2 (benchmarks/sessions/s40-call2.sh)"
graph_tables 64 float16
graph_tables 128 float16
grep -h "exit" $LOGS/*float16.log
tar -czf "$OUT/s40c2.tar.gz" -C $WORK results logs
