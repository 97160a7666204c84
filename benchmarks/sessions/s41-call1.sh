# Session 41, device call 1 (an H200): the fused backward's GPU tests against float64 with
# hopper_fused.DQ_BY_KEYS on, then its A/B against the dS exchange
# (benchmarks/sessions/s41_dq_by_keys_ab.py) from CUDA graphs.
source benchmarks/sessions/common.sh
BUDGET=560
nvidia-smi --query-gpu=name --format=csv,noheader
knob_checks checks-by-keys hopper_fused DQ_BY_KEYS True \
    'fused_backward_against or fused_backward_with_dropout'
step ab python benchmarks/sessions/s41_dq_by_keys_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/ab.log
tar -czf "$OUT/s41c1.tar.gz" -C $WORK results logs
