# Session 36, device call 3 (an H100): the README's CUDA-graph tables on the final tree
# (session 35's views in the fused backward's tile loop), bfloat16 at D=128 and 64, then
# the same in float16 (the targets hold for both dtypes; the float16 figures until now
# were session 24's).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s36 call 3 (benchmarks/sessions/s36-call3.sh)"
graph_tables 128
graph_tables 64
ALL=("${PATTERNS[@]}" "${MORE_PATTERNS[@]}")
for d in 128 64; do
    attention_step sf-d$d-graph-fp16 sparseflash -- --head-dims $d --timer cudagraph \
        --dtypes float16 --patterns "${ALL[@]}"
    attention_step peers-d$d-graph-fp16 flex sdpa-cudnn -- --head-dims $d --timer cudagraph \
        --dtypes float16 --patterns "${ALL[@]}"
done
grep -h "exit" $LOGS/*.log
pack
