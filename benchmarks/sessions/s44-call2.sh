# Session 44, device call 2: call 1 found the H200 at its 700 W power cap through the dense
# D=64 fwd+bwd of ours and cuDNN's, float16 at a 1.6-3.3% lower SM clock than bf16. Here:
# Flex's clock at D=64 (its times were the same in both dtypes in session 43), all three
# at D=128, then the bf16 D=128 CUDA-graph table on this tree.
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s44 call 2 (benchmarks/sessions/s44-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step clocks-d64-flex python benchmarks/sessions/s44_dtype_clocks.py --methods flex
cat $LOGS/clocks-d64-flex.log
step clocks-d128 python benchmarks/sessions/s44_dtype_clocks.py --head-dim 128 \
    --methods sparseflash sdpa-cudnn flex
cat $LOGS/clocks-d128.log
graph_tables 128
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s44c2.tar.gz" -C $WORK results logs
