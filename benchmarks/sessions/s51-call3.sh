# Session 51, device call 3: the README's do_bench table (the five headline patterns, both
# head dims, bf16; sparseflash and the peers in processes of their own) on the kernels as
# they stand; the README's was session 33's tree.
# Result (log benchmarks/results/NVIDIA-H200-attention-s51-call3.log, NOTES v52): dense and
# `causal` within 2.5% of the graphs; three short D=64 rows set by the host (starred).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s51 call 3 (benchmarks/sessions/s51-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
event_tables 64
event_tables 128
grep -h "exit" $LOGS/*.log
pack
