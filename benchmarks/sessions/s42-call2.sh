# Session 42, device call 2 (call 1's warm H200): the dropout scale applied late
# (benchmarks/sessions/s42_drop_scale_late_ab.py) A/B from CUDA graphs and the dropout
# GPU tests against float64 with it on, then the README's CUDA-graph tables (D=64 and
# 128, bf16 then float16) on this tree (DELTA_SCALED on, DROP_SCALE_LATE off, as landed).
source benchmarks/sessions/common.sh
BUDGET=575
NOTE="s42 call 2 (benchmarks/sessions/s42-call2.sh)"
nvidia-smi --query-gpu=name --format=csv,noheader
step ab python benchmarks/sessions/s42_drop_scale_late_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/ab.log
knob_checks checks-drop-scale-late hopper_fused DROP_SCALE_LATE True \
    'fused_backward_with_dropout or dropout_matches_torch'
graph_tables 64
graph_tables 128
graph_tables 64 float16
graph_tables 128 float16
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s42c2.tar.gz" -C $WORK results logs
