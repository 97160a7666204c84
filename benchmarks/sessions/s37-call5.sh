# Session 37, device call 5 (an H100): the README's CUDA-graph tables in float16 (D=128 and
# 64, sparseflash and the peers in processes of their own) on the tree with the backward's
# launches chained by programmatic dependent launch (calls 2 and 3 ran bfloat16).
source benchmarks/sessions/common.sh
BUDGET=330
NOTE="s37 call 5 (benchmarks/sessions/s37-call5.sh)"
ALL=("${PATTERNS[@]}" "${MORE_PATTERNS[@]}")
for d in 128 64; do
    attention_step sf-d$d-graph-fp16 sparseflash -- --head-dims $d --timer cudagraph \
        --dtypes float16 --patterns "${ALL[@]}"
    attention_step peers-d$d-graph-fp16 flex sdpa-cudnn -- --head-dims $d --timer cudagraph \
        --dtypes float16 --patterns "${ALL[@]}"
done
grep -h "exit" $LOGS/*.log
pack
