# Session 41, device call 5 (an H200): the clock trace of the fused backward's consumer
# warp groups (benchmarks/sessions/s39_bwd_trace.py) again, in a patched copy of this
# tree, as session 40's call 1 ran it: that call's log and buffers did not survive the
# session (its results were not copied into the repository before it ended).
source benchmarks/sessions/common.sh
BUDGET=330
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf /tmp/trace-tree && mkdir -p /tmp/trace-tree
cp -r sparseflash benchmarks tests layouts setup.cfg /tmp/trace-tree/
(cd /tmp/trace-tree && git apply benchmarks/sessions/s39_bwd_trace.patch && echo "patch applied")
(cd /tmp/trace-tree && PYTHONPATH=/tmp/trace-tree step bwd-trace \
    python benchmarks/sessions/s39_bwd_trace.py $RES/traces)
cat $LOGS/bwd-trace.log
tar -czf "$OUT/s41c5.tar.gz" -C $WORK results logs
