# Session 47, device call 3: the README's five patterns at N = 1K, 4K and 64K at D=128 in
# float16 from CUDA graphs, for the speed-against-N figure.
source benchmarks/sessions/common.sh
BUDGET=330
NOTE="s47 call 3 (benchmarks/sessions/s47-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for methods in sparseflash "flex sdpa-cudnn"; do
    name=sweep-d128-float16-${methods%% *}
    step $name python -m benchmarks.attention --seq-lens 1024 4096 65536 \
        --head-dims 128 --modes fwd fwd+bwd --dtypes float16 --methods $methods \
        --timer cudagraph --patterns "${PATTERNS[@]}" \
        --out $RES/$name.json --note "$NOTE: N sweep, $methods"
done
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s47c3.tar.gz" -C $WORK results logs
