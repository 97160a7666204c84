# Session 34, device call 3: the fused backward with dQ cast in the kernel (its tiles
# counted down) -- its GPU tests against float64 first, then alternating with the cast
# after the kernel (s34_finish_dq_ab.py).
source benchmarks/sessions/common.sh
BUDGET=580
step checks python -m pytest -q -x tests/test_gpu.py -k "fused_backward_against or fused_backward_with_dropout or deterministic"
tail -5 $LOGS/checks.log
step finish python benchmarks/sessions/s34_finish_dq_ab.py --rounds 2
cat $LOGS/finish.log
pack
