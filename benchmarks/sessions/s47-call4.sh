# Session 47, device call 4: what the causal diagonal's partial blocks cost at short
# sequences. `causal | local(0)` is the same block-lower-triangular layout with its
# diagonal blocks full (no element mask): the same tiles, the same rows and schedule.
# sparseflash alone, bf16, from CUDA graphs, N = 1K and 4K (16K tokens a call), D = 64, 128.
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s47 call 4 (benchmarks/sessions/s47-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step diagonal python -m benchmarks.attention --seq-lens 1024 4096 --head-dims 64 128 \
    --modes fwd fwd+bwd --dtypes bfloat16 --methods sparseflash --timer cudagraph \
    --patterns causal "causal | local(0)" dense \
    --out $RES/diagonal.json --note "$NOTE: causal against its blocks full"
grep -E "^sparseflash" $LOGS/diagonal.log
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s47c4.tar.gz" -C $WORK results logs
