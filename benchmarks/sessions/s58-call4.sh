# Session 58, device call 4: the length sweep in float16 and the README's do_bench tables
# (five headline patterns at 16K, D=64 and 128, bf16) on an H100.
source benchmarks/sessions/common.sh
BUDGET=520
NOTE="s58 call 4 (benchmarks/sessions/s58-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
length_sweep float16
event_tables 64
event_tables 128
grep -h "exit" $LOGS/sweep-fp16*.log $LOGS/*events*.log
pack
