# Session 36, device call 9 (an H200): the D=64 backward with dropout on partial blocks,
# its draw places on 128 x 64 tiles and 128 x 128 beside them (s36_partial_dropout.py).
source benchmarks/sessions/common.sh
BUDGET=400
step partial-dropout python benchmarks/sessions/s36_partial_dropout.py --rounds 2
grep -E "best|DIFFER" $LOGS/partial-dropout.log
pack
