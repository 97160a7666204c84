# Session 54, device call 8: hopper's own forward with one mbarrier a K/V tile. First the 46
# D=64 GPU tests against float64, then the A/B against the tree before (s54_kvbar_ab.py).
source benchmarks/sessions/common.sh
BUDGET=540
NOTE="s54 call 8 (benchmarks/sessions/s54-call8.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
old_tree .carry/old-s54.tar
d64_forward_checks
tail -5 $LOGS/checks.log
step kvbar python benchmarks/sessions/s54_kvbar_ab.py $OLD --rounds 3
grep -E "best|B=|Error|error|DIFF" $LOGS/kvbar.log | head -40
pack
