# Session 53, device call 6: hopper's own forward without invalidating its mbarriers at the
# end, timed against the tree before (s53_inval_ab.py; .carry/s53-old.tar is commit
# 97688da), then the 46 D=64 GPU tests.
source benchmarks/sessions/common.sh
BUDGET=420
NOTE="s53 call 6 (benchmarks/sessions/s53-call6.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
old_tree .carry/s53-old.tar
step inval-ab python benchmarks/sessions/s53_inval_ab.py $OLD --rounds 2
grep -E "best|B=" $LOGS/inval-ab.log
d64_forward_checks
tail -3 $LOGS/checks.log
pack
