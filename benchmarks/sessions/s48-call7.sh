# Session 48, device call 7: call 6 in float16: causal and dense at N = 1K and 4K (16K
# tokens a call), both head dims, forward and fwd+bwd, timed from CUDA graphs,
# sparseflash and the peers in processes of their own.
source benchmarks/sessions/common.sh
BUDGET=330
NOTE="s48 call 7 (benchmarks/sessions/s48-call7.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for who in sf peers; do
    if [ $who = sf ]; then methods=(sparseflash); else methods=(flex sdpa-cudnn); fi
    step $who-short-fp16 python -m benchmarks.attention --seq-lens 1024 4096 --head-dims 64 128 \
        --modes fwd fwd+bwd --dtypes float16 --methods "${methods[@]}" --timer cudagraph \
        --patterns dense causal --out $RES/$who-short-fp16.json --note "$NOTE: $who-short-fp16 in its own process"
done
grep -h " ms " $LOGS/sf-short-fp16.log $LOGS/peers-short-fp16.log | head -60
grep -h "exit" $LOGS/*.log
pack
