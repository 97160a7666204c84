# Session 54, device call 5: O out of the own D=64 forward by 16-byte stores staged through
# shared memory instead of a waited TMA store (s54_store_probe.py).
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s54 call 5 (benchmarks/sessions/s54-call5.sh)"
step store python benchmarks/sessions/s54_store_probe.py --rounds 3
grep -E "best|B=|Error|error|DIFF" $LOGS/store.log | head -40
pack
