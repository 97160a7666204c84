# Session 54, device call 10: hopper's own forward with the refill under the score product. First the 46
# D=64 GPU tests against float64, then the A/B against the tree before (s54_refill_ab.py).
source benchmarks/sessions/common.sh
BUDGET=540
NOTE="s54 call 10 (benchmarks/sessions/s54-call10.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
old_tree .carry/old-s54.tar
d64_forward_checks
tail -5 $LOGS/checks.log
step refill python benchmarks/sessions/s54_refill_ab.py $OLD --rounds 3
grep -E "best|B=|Error|error|DIFF" $LOGS/refill.log | head -40
pack
