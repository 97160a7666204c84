# Session 49, device call 4: hopper's own forward takes D=64 layouts with partial blocks
# at every row length where it carries P in float32 (hopper.carries_p_f32; the ping-pong
# kernel keeps D=64 calls with key padding or anti-causal blocks and long rows). The
# kernel-choice GPU tests and the own kernel's causal cases first, then causal at
# N = 4K, 16K and 64K, D=64, bf16, forward and fwd+bwd from CUDA graphs, sparseflash and
# the peers in processes of their own.
source benchmarks/sessions/common.sh
BUDGET=500
NOTE="s49 call 4 (benchmarks/sessions/s49-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "d64_forward_choice or (gluon_forward_against and causal)"
tail -3 $LOGS/checks.log
for who in sf peers; do
    if [ $who = sf ]; then methods=(sparseflash); else methods=(flex sdpa-cudnn); fi
    step $who-causal python -m benchmarks.attention --seq-lens 4096 16384 65536 --head-dims 64 \
        --modes fwd fwd+bwd --dtypes bfloat16 --methods "${methods[@]}" --timer cudagraph \
        --patterns causal --out $RES/$who-causal.json --note "$NOTE: $who-causal in its own process"
done
grep -h " ms " $LOGS/sf-causal.log $LOGS/peers-causal.log | head -40
grep -h "exit" $LOGS/*.log
pack
