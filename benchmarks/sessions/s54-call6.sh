# Session 54, device call 6: the ping-pong forward against the own kernel on D=64 rows of
# full blocks (s54_pingpong_d64_ab.py).
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s54 call 6 (benchmarks/sessions/s54-call6.sh)"
step pingpong python benchmarks/sessions/s54_pingpong_d64_ab.py --rounds 2
grep -E "best|B=|Error|error|DIFF" $LOGS/pingpong.log | head -40
pack
