# Session 49, device call 5 (the tree of call 4): causal in float16 at N = 1K, 4K and 64K,
# both head dims, and in bf16 at 16K, D=128, forward and fwd+bwd from CUDA graphs,
# sparseflash and the peers in processes of their own.
source benchmarks/sessions/common.sh
BUDGET=520
NOTE="s49 call 5 (benchmarks/sessions/s49-call5.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for who in sf peers; do
    if [ $who = sf ]; then methods=(sparseflash); else methods=(flex sdpa-cudnn); fi
    step $who-fp16 python -m benchmarks.attention --seq-lens 1024 4096 65536 --head-dims 64 128 \
        --modes fwd fwd+bwd --dtypes float16 --methods "${methods[@]}" --timer cudagraph \
        --patterns causal --out $RES/$who-fp16.json --note "$NOTE: $who-fp16 in its own process"
    step $who-16k python -m benchmarks.attention --seq-lens 16384 --head-dims 128 \
        --modes fwd fwd+bwd --dtypes bfloat16 --methods "${methods[@]}" --timer cudagraph \
        --patterns causal --out $RES/$who-16k.json --note "$NOTE: $who-16k in its own process"
done
grep -h " ms " $LOGS/sf-*.log $LOGS/peers-*.log | head -40
grep -h "exit" $LOGS/*.log
pack
