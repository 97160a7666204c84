# Session 39, device call 3 (asked for an H200; ran on call 2's warm H100): the README's
# CUDA-graph tables on the DK_EARLY tree (bfloat16 and float16, D=64 and 128; sparseflash
# and the peers in processes of their own).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s39 call 3 (benchmarks/sessions/s39-call3.sh)"
all_graph_tables  # (as run, the same four graph_tables written out as a loop)
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s39c3.tar.gz" -C $WORK results logs
