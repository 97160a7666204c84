# Session 46, device call 2: the bf16 CUDA-graph tables on this tree (hopper's own D=64
# forward's fill, which the README's shape does not take; the fused backward's fill
# variant without its spill) at both head dims, then the fused backward's fill A/B at
# D=128 and with dropout (s46_fused_fill_ab.py).
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s46 call 2 (benchmarks/sessions/s46-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
graph_tables 64
graph_tables 128
step fused-fill-ab python benchmarks/sessions/s46_fused_fill_ab.py --rounds 2
grep "best" $LOGS/fused-fill-ab.log
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s46c2.tar.gz" -C $WORK results logs
