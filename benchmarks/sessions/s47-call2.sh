# Session 47, device call 2: which forward takes D=64 causal at short sequences
# (s47_causal_short_ab.py); the README's five patterns at N = 1K, 4K and 64K at D=128
# in bf16, then at D=64 in float16, from CUDA graphs, for the speed-against-N figure.
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s47 call 2 (benchmarks/sessions/s47-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step causal-short-ab python benchmarks/sessions/s47_causal_short_ab.py --rounds 2
grep "best\|^B=" $LOGS/causal-short-ab.log
for args in "128 bfloat16" "64 float16"; do
    set -- $args
    for methods in sparseflash "flex sdpa-cudnn"; do
        name=sweep-d$1-$2-${methods%% *}
        step $name python -m benchmarks.attention --seq-lens 1024 4096 65536 \
            --head-dims $1 --modes fwd fwd+bwd --dtypes $2 --methods $methods \
            --timer cudagraph --patterns "${PATTERNS[@]}" \
            --out $RES/$name.json --note "$NOTE: N sweep, $methods"
    done
done
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s47c2.tar.gz" -C $WORK results logs
