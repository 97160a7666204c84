# Session 37, device call 5 (an H100): the README's CUDA-graph tables in float16 (D=128 and
# 64, sparseflash and the peers in processes of their own) on the tree with the backward's
# launches chained by programmatic dependent launch (calls 2 and 3 ran bfloat16). D=64
# first; each job's rows copied to $OUT as it ends, in case the session's device time
# runs out before the pack.
source benchmarks/sessions/common.sh
BUDGET=330
NOTE="s37 call 5 (benchmarks/sessions/s37-call5.sh)"
ALL=("${PATTERNS[@]}" "${MORE_PATTERNS[@]}")
for d in 64 128; do
    attention_step sf-d$d-graph-fp16 sparseflash -- --head-dims $d --timer cudagraph \
        --dtypes float16 --patterns "${ALL[@]}"
    attention_step peers-d$d-graph-fp16 flex sdpa-cudnn -- --head-dims $d --timer cudagraph \
        --dtypes float16 --patterns "${ALL[@]}"
    cp $RES/*.json $LOGS/*.log "$OUT"/ 2>/dev/null
done
grep -h "exit" $LOGS/*.log
pack
