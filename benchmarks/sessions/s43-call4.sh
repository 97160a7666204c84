# Session 43, device call 4: the dQ hand-offs on named barriers in calls with dropout only
# (hopper_fused.named_dq). The dropout GPU tests against float64 with it on first, then
# the A/B with dropout at both head dims (benchmarks/sessions/s43_named_dq_dropout_ab.py),
# then the tests of calls without dropout, which must take the mbarriers as before.
source benchmarks/sessions/common.sh
BUDGET=470
nvidia-smi --query-gpu=name --format=csv,noheader
knob_checks checks-named-dq-dropout hopper_fused NAMED_DQ True \
    'fused_backward_with_dropout or dropout_matches_torch'
step ab python benchmarks/sessions/s43_named_dq_dropout_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/ab.log
knob_checks checks-plain hopper_fused NAMED_DQ True 'fused_backward_against and dtype1'
tar -czf "$OUT/s43c4.tar.gz" -C $WORK results logs
