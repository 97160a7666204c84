# Session 57, device call 1: the README's five headline patterns at N = 1K, 4K and 64K, both
# head dims, bf16, from CUDA graphs (sparseflash, then Flex and cuDNN in a process of their
# own), on the kernels as they stand. The speed-against-N points at those lengths were
# sessions 47-50's, before the changes of sessions 52-56 (the D=64 forward's prologue and
# refill, the lazy rescale); every row is checked against SDPA before it is timed.
# Result (log benchmarks/results/NVIDIA-H200-attention-sweep-s57-call1.log, NOTES v58): sparse
# D=64 forwards 3.8-8.5% above sessions 47-50's points; every Flex mark met but random+global
# D=128 fwd+bwd at 1K and 4K (1.57x, 1.62x); `causal` D=64 fwd+bwd at 64K 1.82x. (Run with the
# sweep's loop written out here; common.sh's length_sweep, which replaced it, makes the same
# commands.)
source benchmarks/sessions/common.sh
BUDGET=580
NOTE="s57 call 1 (benchmarks/sessions/s57-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
length_sweep bfloat16
grep -h "exit" $LOGS/*.log
pack
