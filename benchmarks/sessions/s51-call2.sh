# Session 51, device call 2: call 1 again on another start of the machine (the README's
# CUDA-graph tables, both head dims and dtypes), then `causal` at 64K in bf16 (D=64
# fwd+bwd: 1.798x and 1.791x Flex in sessions 49 and 50, the mark 1.8x) if time is left.
# Result (logs benchmarks/results/NVIDIA-H200-attention-s51-call2.log and
# NVIDIA-H200-causal-64k-s51-call2.log, NOTES v52): bf16 within 1.4% of call 1, every Flex
# mark met; float16 dense D=64 fwd+bwd 1.792x; `causal` D=64 fwd+bwd at 64K 1.802x Flex.
source benchmarks/sessions/common.sh
BUDGET=585
NOTE="s51 call 2 (benchmarks/sessions/s51-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
all_graph_tables
step sf-64k python -m benchmarks.attention --seq-lens 65536 --modes fwd fwd+bwd \
    --dtypes bfloat16 --methods sparseflash --head-dims 64 --timer cudagraph \
    --patterns causal --out $RES/sf-64k.json --note "$NOTE: sf-64k in its own process"
step peers-64k python -m benchmarks.attention --seq-lens 65536 --modes fwd fwd+bwd \
    --dtypes bfloat16 --methods flex sdpa-cudnn --head-dims 64 --timer cudagraph \
    --patterns causal --out $RES/peers-64k.json --note "$NOTE: peers-64k in its own process"
grep -h " ms " $LOGS/*64k*.log | grep -v "^|"
grep -h "exit" $LOGS/*.log
pack
