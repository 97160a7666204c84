# Session 48, device call 2: the partial mask's rewrites against main and against no mask
# (s48_diag_probe_ab.py: probes 5 and 6 added after call 1), on causal at 1K and 4K and
# on N = 1,000 (ragged last blocks, the bounds code).
source benchmarks/sessions/common.sh
BUDGET=420
NOTE="s48 call 2 (benchmarks/sessions/s48-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step probe-ab python benchmarks/sessions/s48_diag_probe_ab.py --rounds 2 --probes main nomask bounds onecmp interval
grep "best\|^B=" $LOGS/probe-ab.log
grep -c "O max|diff|/max 0.0e+00, LSE 0.0e+00" $LOGS/probe-ab.log
grep -v "0.0e+00, LSE 0.0e+00" $LOGS/probe-ab.log | grep "round" | grep -v nomask | head
grep -h "exit" $LOGS/*.log
pack
