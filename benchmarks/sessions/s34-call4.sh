# Session 34, device call 4: main's ping-pong forward on the new GPU case (rows of one
# tile, key padding with holes) and the other padded cases, against float64.
source benchmarks/sessions/common.sh
BUDGET=400
step checks python -m pytest -q tests/test_gpu.py -k "pingpong_forward and holes" -rA
grep -E "PASSED|FAILED|passed|failed" $LOGS/checks.log | tail -40
pack
