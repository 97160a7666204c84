# Session 58, device call 5: target 4's scale rows on an H100 (N = 1,048,576, B=1, H=16,
# `local(3)` and `butterfly`, fwd and fwd+bwd, bf16, D=64 and 128, peak memory).
# Result (records `s58 call 5` of benchmarks/results/NVIDIA-H100-attention.json, log
# benchmarks/results/NVIDIA-H100-attention-1m-s58-call5.log): fwd+bwd 36.4 ms (`local(3)`)
# and 75.9 ms (`butterfly`) at D=64, 69.0 and 137.1 ms at D=128; peak 14.5 GB and 28.8 GB.
source benchmarks/sessions/common.sh
BUDGET=400
NOTE="s58 call 5 (benchmarks/sessions/s58-call5.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for d in 64 128; do
    step scale-1m-d$d python -m benchmarks.attention --seq-lens 1048576 --tokens 1048576 \
        --heads 16 --head-dims $d --patterns "local(3)" butterfly --methods sparseflash \
        --modes fwd fwd+bwd --out $RES/attention-1m-d$d.json --note "$NOTE, alone on the GPU"
done
grep -h "exit" $LOGS/scale*.log
pack
