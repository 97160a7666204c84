# Session 52, device call 2: hopper's own forward without integer divisions in its
# coordinates, checked against float64 (its D=64 GPU tests) and timed against the tree
# before (s52_coords_ab.py; the old tree carried as .carry/s52-old.tar).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s52 call 2 (benchmarks/sessions/s52-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
old_tree .carry/s52-old.tar
step coords-ab python benchmarks/sessions/s52_coords_ab.py $OLD --rounds 2
cat $LOGS/coords-ab.log
d64_forward_checks
tail -5 $LOGS/checks.log
pack
