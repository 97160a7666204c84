# Session 49, device call 3 (the tree of commit d24474c: P in float32 through the full
# loop in hopper's own forward with partial blocks, and in the ping-pong one with dropout
# or at D=128): which forward takes D=64 causal at long rows now
# (s49_causal_kernel_ab.py, again), then causal at N = 1K, 4K and 64K, both head dims,
# bf16, forward and fwd+bwd from CUDA graphs, sparseflash and the peers in processes of
# their own.
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s49 call 3 (benchmarks/sessions/s49-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step kernel-ab python benchmarks/sessions/s49_causal_kernel_ab.py --rounds 2
grep "best\|^B=" $LOGS/kernel-ab.log
for who in sf peers; do
    if [ $who = sf ]; then methods=(sparseflash); else methods=(flex sdpa-cudnn); fi
    step $who-causal python -m benchmarks.attention --seq-lens 1024 4096 65536 --head-dims 64 128 \
        --modes fwd fwd+bwd --dtypes bfloat16 --methods "${methods[@]}" --timer cudagraph \
        --patterns causal --out $RES/$who-causal.json --note "$NOTE: $who-causal in its own process"
done
grep -h " ms " $LOGS/sf-causal.log $LOGS/peers-causal.log | head -40
grep -h "exit" $LOGS/*.log
pack
