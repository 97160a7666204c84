# Session 45, device call 3: the last-wave fill at a shape of 1.06 waves and at the
# README's again (s45_fill_shapes.py), then the bf16 CUDA-graph tables on this tree (the
# fill on) at both head dims.
source benchmarks/sessions/common.sh
BUDGET=575
NOTE="s45 call 3 (benchmarks/sessions/s45-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step fill-shapes python benchmarks/sessions/s45_fill_shapes.py --rounds 3
grep "B=\|best" $LOGS/fill-shapes.log
graph_tables 64
graph_tables 128
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s45c3.tar.gz" -C $WORK results logs
