# Session 47, device call 1: the D=64 forward's first-wave second programs started later
# (hopper.STAGGER_CYCLES, s47_stagger_ab.py); then the README's five patterns at N = 1K,
# 4K and 64K at D=64 from CUDA graphs (sparseflash, then Flex and cuDNN in a process of
# their own), for the speed-against-N figure.
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s47 call 1 (benchmarks/sessions/s47-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step stagger-ab python benchmarks/sessions/s47_stagger_ab.py --rounds 2
grep "best" $LOGS/stagger-ab.log
for methods in sparseflash "flex sdpa-cudnn"; do
    step sweep-d64-${methods%% *} python -m benchmarks.attention --seq-lens 1024 4096 65536 \
        --head-dims 64 --modes fwd fwd+bwd --dtypes bfloat16 --methods $methods \
        --timer cudagraph --patterns "${PATTERNS[@]}" \
        --out $RES/sweep-d64-${methods%% *}.json --note "$NOTE: N sweep, $methods"
done
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s47c1.tar.gz" -C $WORK results logs
