# Session 40, device call 1: the clock trace of the fused backward's consumer warp groups
# (benchmarks/sessions/s39_bwd_trace.py), run in a copy of this tree with
# s39_bwd_trace.patch applied, so that the tree itself stays main's for later steps.
source benchmarks/sessions/common.sh
BUDGET=420
NOTE="s40 call 1 (benchmarks/sessions/s40-call1.sh)"
rm -rf /tmp/trace-tree && mkdir -p /tmp/trace-tree && cp -r sparseflash benchmarks tests /tmp/trace-tree/
(cd /tmp/trace-tree && git apply benchmarks/sessions/s39_bwd_trace.patch && echo "patch applied")
(cd /tmp/trace-tree && PYTHONPATH=/tmp/trace-tree step bwd-trace \
    python benchmarks/sessions/s39_bwd_trace.py $RES/traces)
cat $LOGS/bwd-trace.log
tar -czf "$OUT/s40c1.tar.gz" -C $WORK results logs
