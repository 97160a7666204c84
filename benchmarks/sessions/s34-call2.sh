# Session 34, device call 2: the fused backward's memory passes (delta and the dQ
# accumulator's zeroing; dQ's cast) timed against the backward (s34_bwd_passes.py); the
# ping-pong forward's new case (rows of one tile) against float64 on main's kernel.
source benchmarks/sessions/common.sh
BUDGET=500
step passes python benchmarks/sessions/s34_bwd_passes.py
step checks python -m pytest -q -x tests/test_gpu.py -k "pingpong_forward and local(0)"
cat $LOGS/passes.log
tail -5 $LOGS/checks.log
pack
