# Session 43, device call 3: the README's CUDA-graph tables on the final tree (NAMED_DQ,
# slower in call 2's A/B, removed): float16 at D=64 and D=128, which call 1 did not run,
# then bf16 D=64 again (its dense fwd+bwd, 1.79x Flex in call 1, is the one ratio near
# its mark).
source benchmarks/sessions/common.sh
BUDGET=540
NOTE="s43 call 3 (benchmarks/sessions/s43-call3.sh)"
nvidia-smi --query-gpu=name --format=csv,noheader
graph_tables 64 float16
graph_tables 128 float16
graph_tables 64
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s43c3.tar.gz" -C $WORK results logs
