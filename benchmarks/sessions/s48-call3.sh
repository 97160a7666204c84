# Session 48, device call 3: probe 7 (probe 5's one compare a score without its
# anti-causal branch, which made ptxas spill 164 bytes in hopper's own D=64 kernel; 7
# spills none there) against main, 5 and 6 (s48_diag_probe_ab.py), on causal at 1K and
# 4K and on N = 1,000 (ragged last blocks, the bounds code).
source benchmarks/sessions/common.sh
BUDGET=420
NOTE="s48 call 3 (benchmarks/sessions/s48-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step probe-ab python benchmarks/sessions/s48_diag_probe_ab.py --rounds 2 --probes main onecmp interval upper
grep "best\|^B=" $LOGS/probe-ab.log
grep -c "O max|diff|/max 0.0e+00, LSE 0.0e+00" $LOGS/probe-ab.log
grep -v "0.0e+00, LSE 0.0e+00" $LOGS/probe-ab.log | grep "round" | grep -v nomask | head
grep -h "exit" $LOGS/*.log
pack
