# Session 39, device call 3 (an H200): the README's CUDA-graph tables on the DK_EARLY tree
# (bfloat16 and float16, D=64 and 128; sparseflash and the peers in processes of their own).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s39 call 3 (benchmarks/sessions/s39-call3.sh)"
for args in "64" "128" "64 float16" "128 float16"; do
    graph_tables $args
done
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s39c3.tar.gz" -C $WORK results logs
