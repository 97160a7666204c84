# Session 33, device call 1: the D=128 ping-pong forward's item boundaries (the walk handed
# over by the loader, the O store finished under the next item), four variants
# alternating (s33_handed_walk_ab.py); then the ping-pong forward's GPU tests against
# float64 on the new default (both).
source benchmarks/sessions/common.sh
BUDGET=560
step handed-walk python benchmarks/sessions/s33_handed_walk_ab.py --rounds 2
step checks python -m pytest -q -x tests/test_gpu.py -k "pingpong or gluon_forward or d64_forward"
cat $LOGS/handed-walk.log
tail -5 $LOGS/checks.log
pack
