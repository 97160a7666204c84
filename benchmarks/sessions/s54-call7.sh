# Session 54, device call 7: the own D=64 forward on two K/V buffers against three
# (s54_stages_ab.py).
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s54 call 7 (benchmarks/sessions/s54-call7.sh)"
step stages python benchmarks/sessions/s54_stages_ab.py --rounds 2
grep -E "best|B=|Error|error|DIFF" $LOGS/stages.log | head -40
pack
