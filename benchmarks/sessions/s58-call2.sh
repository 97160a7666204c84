# Session 58, device call 2: the README's CUDA-graph tables (ten patterns at 16K tokens,
# D=64 and 128, bf16 then float16; sparseflash and the peers in processes of their own)
# on an H100, on the kernels that session 56 tabled on the H200.
source benchmarks/sessions/common.sh
BUDGET=585
NOTE="s58 call 2 (benchmarks/sessions/s58-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
all_graph_tables
grep -h "exit" $LOGS/*.log
pack
