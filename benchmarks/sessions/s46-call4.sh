# Session 46, device call 4 (the machine of call 3): the dense D=64 fwd+bwd's clock, power
# and energy on this tree (benchmarks.clocks; session 44's: 8.251-8.271 ms at 1,875 MHz,
# 5.69-5.71 J, before the fused backward's fill), then the D=128 CUDA-graph tables in
# bf16 and float16.
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s46 call 4 (benchmarks/sessions/s46-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step clocks-d64 python -m benchmarks.clocks --head-dim 64 \
    --methods sparseflash sdpa-cudnn flex --out $RES/NVIDIA-H200-clocks.json \
    --note "$NOTE: fwd+bwd, D=64"
cat $LOGS/clocks-d64.log
graph_tables 128
graph_tables 128 float16
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s46c4.tar.gz" -C $WORK results logs
