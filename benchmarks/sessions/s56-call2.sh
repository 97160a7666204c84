# Session 56, device call 2: the final tree (the lazy rescale at D=128 on long rows with
# partial blocks): the ping-pong forward's and the rising-score GPU tests against float64,
# the lazy rescale by row length at D=128 (s56_lazy_d128_rows_ab.py), then the README's
# CUDA-graph tables at D=64 and D=128.
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s56 call 2 (benchmarks/sessions/s56-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step rows python benchmarks/sessions/s56_lazy_d128_rows_ab.py --rounds 3
grep -E "best|B=|Error|error|DIFF" $LOGS/rows.log | head -20
graph_tables 64
graph_tables 128
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k \
    "rising_scores or (pingpong_forward_against and D128)"
tail -3 $LOGS/checks.log
pack
