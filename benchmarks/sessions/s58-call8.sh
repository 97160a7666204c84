# Session 58, device call 8: FlexAttention at N = 65,536 on an H100, bf16, the five
# headline patterns, D=64 then D=128, from CUDA graphs, now that its block mask is built
# compiled (call 3's Flex rows at 64K ran out of memory building it uncompiled).
source benchmarks/sessions/common.sh
BUDGET=210
NOTE="s58 call 8 (benchmarks/sessions/s58-call8.sh)"
for d in 64 128; do
    step flex64k-d$d python -m benchmarks.attention --seq-lens 65536 --head-dims $d \
        --modes fwd fwd+bwd --dtypes bfloat16 --methods flex --timer cudagraph \
        --patterns "${PATTERNS[@]}" --out $RES/flex64k-d$d.json --note "$NOTE: Flex at 64K"
done
grep -h "exit\|flex  \|Error" $LOGS/flex64k*.log | cut -c1-160
pack
