# Session 42, device call 1 (an H200): the backward's delta scaled in the delta kernel
# (benchmarks/sessions/s42_delta_scaled_ab.py) A/B from CUDA graphs, then the fused
# backward's GPU tests against float64 (both dtypes, with and without dropout, and the
# non-positive scales) with it on.
source benchmarks/sessions/common.sh
BUDGET=420
nvidia-smi --query-gpu=name --format=csv,noheader
step ab python benchmarks/sessions/s42_delta_scaled_ab.py --rounds 3
grep -E "best|DIFFER" $LOGS/ab.log
knob_checks checks-delta-scaled hopper_fused DELTA_SCALED True \
    'fused_backward or non_positive_scale or dropout_matches_torch'
tar -czf "$OUT/s42c1.tar.gz" -C $WORK results logs
