# Session 43, device call 2: the dQ hand-offs on named barriers
# (benchmarks/sessions/s43_named_dq_ab.py). First the bf16 fused-backward GPU tests
# against float64 with it on (a hang or a race would show there, in a short step), then
# the A/B from CUDA graphs, then the dropout, float16 and padding tests.
source benchmarks/sessions/common.sh
BUDGET=560
nvidia-smi --query-gpu=name --format=csv,noheader
knob_checks checks-named-dq-bf16 hopper_fused NAMED_DQ True \
    'fused_backward_against and dtype1'
step ab python benchmarks/sessions/s43_named_dq_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/ab.log
knob_checks checks-named-dq-more hopper_fused NAMED_DQ True \
    'fused_backward_with_dropout or (fused_backward and not dtype1) or non_positive_scale'
tar -czf "$OUT/s43c2.tar.gz" -C $WORK results logs
