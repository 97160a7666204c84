# Session 42, device call 4 (the session's last ~9 minutes of device time): the dS
# exchange on a named barrier (benchmarks/sessions/s42_named_exchange_ab.py). First the
# bf16 fused-backward GPU tests against float64 with it on (a hang would show there, in
# a short step), then the A/B from CUDA graphs, then the dropout and float16 tests.
source benchmarks/sessions/common.sh
BUDGET=400
nvidia-smi --query-gpu=name --format=csv,noheader
knob_checks checks-named-bf16 hopper_fused NAMED_EXCHANGE True \
    'fused_backward_against and dtype1'
step ab python benchmarks/sessions/s42_named_exchange_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/ab.log
knob_checks checks-named-more hopper_fused NAMED_EXCHANGE True \
    'fused_backward_with_dropout or (fused_backward_against and not dtype1)'
tar -czf "$OUT/s42c4.tar.gz" -C $WORK results logs
