# Session 58, device call 3: the five headline patterns at N = 1K, 4K and 64K, both head
# dims, bf16, from CUDA graphs (common.sh's length_sweep) on an H100.
# Result (records `s58 call 3`, log benchmarks/results/NVIDIA-H100-attention-sweep-s58-call3.log,
# NOTES v59): dense at 100.4-111.5% of cuDNN's speed; Flex met at 1K and 4K but
# random+global D=128 fwd+bwd (1.50x, 1.57x); at 64K Flex ran out of memory building its
# block mask uncompiled (32 GiB), so no Flex rows there (benchmarks/peers.py now builds it
# compiled).
source benchmarks/sessions/common.sh
BUDGET=585
NOTE="s58 call 3 (benchmarks/sessions/s58-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
length_sweep bfloat16
grep -h "exit" $LOGS/sweep*.log
pack
