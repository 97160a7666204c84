# Session 33, device call 5: the D=128 ping-pong forward with its item boundaries shortened
# (the loader hands over coordinates and walk, the O store ends under the next item, O as
# acc * (1 / l)) against the session-32 form, alternating (s33_boundary_ab.py); then the
# ping-pong forward's GPU tests against float64 on the new default.
source benchmarks/sessions/common.sh
BUDGET=580
step boundary python benchmarks/sessions/s33_boundary_ab.py --rounds 3
step checks python -m pytest -q -x tests/test_gpu.py -k "pingpong or d64_forward"
cat $LOGS/boundary.log
tail -5 $LOGS/checks.log
pack
