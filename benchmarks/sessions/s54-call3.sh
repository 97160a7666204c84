# Session 54, device call 3: the D=64 forward with each program prefetching into L2 the
# next program's Q tile, and its first K/V tiles (s54_prefetch_probe.py).
source benchmarks/sessions/common.sh
BUDGET=420
NOTE="s54 call 3 (benchmarks/sessions/s54-call3.sh)"
step prefetch python benchmarks/sessions/s54_prefetch_probe.py --rounds 2
grep -E "best|B=|Error|error" $LOGS/prefetch.log | head -40
pack
