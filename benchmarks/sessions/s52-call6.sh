# Session 52, device call 6: the D=64 forward GPU tests on the final tree (call 2's set,
# with the per-head GQA case whose backward call 2 found broken, and the fill).
source benchmarks/sessions/common.sh
BUDGET=330
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
d64_forward_checks
tail -5 $LOGS/checks.log
pack
