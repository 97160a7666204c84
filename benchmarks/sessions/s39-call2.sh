# Session 39, device call 2 (an H100): the README's CUDA-graph tables on the DK_EARLY tree
# (bfloat16 and float16, D=64 and 128; sparseflash and the peers in processes of their own).
source benchmarks/sessions/common.sh
BUDGET=580
NOTE="s39 call 2 (benchmarks/sessions/s39-call2.sh)"
all_graph_tables  # (as run, the same four graph_tables written out as a loop)
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s39c2.tar.gz" -C $WORK results logs
