# Session 58, device call 2: the README's CUDA-graph tables (ten patterns at 16K tokens,
# D=64 and 128, bf16 then float16; sparseflash and the peers in processes of their own)
# on an H100, on the kernels that session 56 tabled on the H200.
# Result (records `s58 call 2` of benchmarks/results/NVIDIA-H100-attention-cudagraph.json,
# log benchmarks/results/NVIDIA-H100-attention-s58-call2.log, NOTES v59): dense at
# 100.6-105.7% of cuDNN's speed; every Flex mark met in bf16 but dense D=64 fwd+bwd (1.78x;
# cuDNN's own 1.70x), in float16 but that (1.73x), `sparse_transformer_strided` D=64
# fwd+bwd (1.79x) and dense D=128 fwd+bwd (1.398x).
source benchmarks/sessions/common.sh
BUDGET=585
NOTE="s58 call 2 (benchmarks/sessions/s58-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
all_graph_tables
grep -h "exit" $LOGS/*.log
pack
