# Session 57, device call 2: the README's five headline patterns at N = 1K, 4K and 64K, both
# head dims, float16, from CUDA graphs (sparseflash, then Flex and cuDNN in a process of their
# own), on the kernels as they stand. The speed-against-N points at those lengths were
# sessions 47-50's, before the changes of sessions 52-56 (the D=64 forward's prologue and
# refill, the lazy rescale); every row is checked against SDPA before it is timed.
# Result (logs benchmarks/results/NVIDIA-H200-attention-sweep-float16-s57-call2.log and
# -attention-s57-call2.log, NOTES v58): in float16 the bf16 misses and, at 64K, `causal` D=64
# fwd+bwd 1.77x and random+global D=128 fwd+bwd 1.97x; the do_bench table had 5 of its 12
# sparse figures set by the host, so the README keeps session 51's. (Run with the sweep's loop
# written out; common.sh's length_sweep makes the same commands.)
source benchmarks/sessions/common.sh
BUDGET=580
NOTE="s57 call 2 (benchmarks/sessions/s57-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
length_sweep float16
# Then the README's do_bench table (bf16, the five headline patterns), session 51's until now.
event_tables 64
event_tables 128
grep -h "exit" $LOGS/*.log
pack
