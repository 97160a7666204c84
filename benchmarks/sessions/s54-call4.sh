# Session 54, device call 4: local(1)'s D=64 forward with its first K/V copies waiting on one
# dependent load instead of two, and with Q's copy issued first (s54_early_copies_probe.py).
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s54 call 4 (benchmarks/sessions/s54-call4.sh)"
step early python benchmarks/sessions/s54_early_copies_probe.py --rounds 3
grep -E "best|B=|Error|error" $LOGS/early.log | head -40
pack
