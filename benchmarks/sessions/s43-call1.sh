# Session 43, device call 1 (an H200): the final tree of session 42 (DELTA_SCALED,
# DROP_SCALE_LATE and NAMED_EXCHANGE all on) checked first, by the fused backward's GPU
# tests against float64 (both dtypes, dropout, non-positive scales), then the README's
# CUDA-graph tables at D=64 and D=128 in bf16, which no run had measured on this tree.
source benchmarks/sessions/common.sh
BUDGET=585
NOTE="s43 call 1 (benchmarks/sessions/s43-call1.sh)"
nvidia-smi --query-gpu=name --format=csv,noheader
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k 'fused_backward or non_positive_scale or dropout_matches_torch'
tail -3 $LOGS/checks.log
graph_tables 64
graph_tables 128
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s43c1.tar.gz" -C $WORK results logs
