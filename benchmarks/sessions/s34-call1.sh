# Session 34, device call 1: the D=128 ping-pong forward with merged item boundaries
# against the session-33 loop, alternating (s34_merged_ab.py); then the ping-pong
# forward's GPU tests against float64 on the new default.
source benchmarks/sessions/common.sh
BUDGET=580
step merged python benchmarks/sessions/s34_merged_ab.py --rounds 2
step checks python -m pytest -q -x tests/test_gpu.py -k "pingpong_forward_against or pingpong_forward_programs or pingpong_forward_with_dropout_against"
cat $LOGS/merged.log
tail -5 $LOGS/checks.log
pack
