# Session 57, device call 2: the README's five headline patterns at N = 1K, 4K and 64K, both
# head dims, float16, from CUDA graphs (sparseflash, then Flex and cuDNN in a process of their
# own), on the kernels as they stand. The speed-against-N points at those lengths were
# sessions 47-50's, before the changes of sessions 52-56 (the D=64 forward's prologue and
# refill, the lazy rescale); every row is checked against SDPA before it is timed.
source benchmarks/sessions/common.sh
BUDGET=580
NOTE="s57 call 2 (benchmarks/sessions/s57-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for d in 64 128; do
    for methods in sparseflash "flex sdpa-cudnn"; do
        step sweep-fp16-d$d-${methods%% *} python -m benchmarks.attention \
            --seq-lens 1024 4096 65536 --head-dims $d --modes fwd fwd+bwd \
            --dtypes float16 --methods $methods --timer cudagraph \
            --patterns "${PATTERNS[@]}" --out $RES/sweep-fp16-d$d-${methods%% *}.json \
            --note "$NOTE: N sweep, $methods"
    done
done
# Then the README's do_bench table (bf16, the five headline patterns), session 51's until now.
event_tables 64
event_tables 128
grep -h "exit" $LOGS/*.log
pack
