# Session 54, device call 2: the D=64 forward with each program idling a fixed number of
# cycles at its start or its end (s54_delay_probe.py): what row-boundary latency costs.
source benchmarks/sessions/common.sh
BUDGET=420
NOTE="s54 call 2 (benchmarks/sessions/s54-call2.sh)"
step delay python benchmarks/sessions/s54_delay_probe.py --rounds 2
tail -40 $LOGS/delay.log
pack
