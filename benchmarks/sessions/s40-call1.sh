# Session 40, device call 1: the clock trace of the fused backward's consumer warp groups
# (benchmarks/sessions/s39_bwd_trace.py), run in a copy of this tree with
# s39_bwd_trace.patch applied, so that the tree itself stays main's for later steps; then,
# on an H200 only, the README's bf16 CUDA-graph tables (D=64 and 128) on this tree.
# (As first run, the copy lacked layouts/, so the trace stopped after dense D=64.)
# Its results were lost: session 40 ended before they were copied into the repository.
# Session 41 ran the same steps again (s41-call3.sh and -call4.sh: the tables; s41-call5.sh:
# the trace).
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s40 call 1 (benchmarks/sessions/s40-call1.sh)"
rm -rf /tmp/trace-tree && mkdir -p /tmp/trace-tree
cp -r sparseflash benchmarks tests layouts setup.cfg /tmp/trace-tree/
(cd /tmp/trace-tree && git apply benchmarks/sessions/s39_bwd_trace.patch && echo "patch applied")
rm -f $LOGS/bwd-trace.log
(cd /tmp/trace-tree && PYTHONPATH=/tmp/trace-tree step bwd-trace \
    python benchmarks/sessions/s39_bwd_trace.py $RES/traces)
cat $LOGS/bwd-trace.log
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    graph_tables 64
    graph_tables 128
fi
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s40c1.tar.gz" -C $WORK results logs
