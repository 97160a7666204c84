# Session 42, device call 3 (call 2's warm H200): the README's CUDA-graph table at D=128
# in float16 (cut off by call 2's budget), and the D=64 bf16 one again for a second
# sample of the dense fwd+bwd ratio to Flex, on this tree (DELTA_SCALED and
# DROP_SCALE_LATE on, as landed).
source benchmarks/sessions/common.sh
BUDGET=420
NOTE="s42 call 3 (benchmarks/sessions/s42-call3.sh)"
nvidia-smi --query-gpu=name --format=csv,noheader
graph_tables 128 float16
graph_tables 64
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s42c3.tar.gz" -C $WORK results logs
