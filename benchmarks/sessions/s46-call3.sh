# Session 46, device call 3 (another start of the machine): the fused backward's fill
# A/B on the dense D=64 backward again (s46_fused_fill_d64_ab.py, three rounds), then the
# D=64 CUDA-graph tables in bf16 and float16.
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s46 call 3 (benchmarks/sessions/s46-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step fused-fill-d64 python benchmarks/sessions/s46_fused_fill_d64_ab.py --rounds 3
grep "best" $LOGS/fused-fill-d64.log
graph_tables 64
graph_tables 64 float16
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s46c3.tar.gz" -C $WORK results logs
