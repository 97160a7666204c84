# Session 52, device call 5: the README's do_bench table (the five headline patterns, both
# head dims, bf16) on the final kernels, as s51-call3.sh made it on session 51's.
source benchmarks/sessions/common.sh
BUDGET=400
NOTE="s52 call 5 (benchmarks/sessions/s52-call5.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
event_tables 64
event_tables 128
grep -h "exit" $LOGS/*.log
pack
