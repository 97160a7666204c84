# Session 51, device call 1: the README's CUDA-graph tables (all ten patterns, both head
# dims, bf16 then float16, sparseflash and the peers in processes of their own) on the
# kernels as they stand (session 49's: hopper's own D=64 forward with P carried in float32
# and the one-compare diagonal mask). The README's tables were session 46's tree; since,
# only `causal` and the sequence-length sweep were timed again.
# Result (log benchmarks/results/NVIDIA-H200-attention-s51-call1.log, NOTES v52): every
# ratio to Flex met in both dtypes (dense D=64 fwd+bwd 1.858x in bf16, 1.806x in float16);
# `causal` keeps 93-98% of the dense TFLOP/s; the README's tables are this call's.
source benchmarks/sessions/common.sh
BUDGET=575
NOTE="s51 call 1 (benchmarks/sessions/s51-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
python -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
all_graph_tables
grep -h "exit" $LOGS/*.log
pack
