# Session 58, device call 3: the five headline patterns at N = 1K, 4K and 64K, both head
# dims, bf16, from CUDA graphs (common.sh's length_sweep) on an H100.
source benchmarks/sessions/common.sh
BUDGET=585
NOTE="s58 call 3 (benchmarks/sessions/s58-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
length_sweep bfloat16
grep -h "exit" $LOGS/sweep*.log
pack
