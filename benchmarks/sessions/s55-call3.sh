# Session 55, device call 3: the final tree (the lazy rescale on layouts with partial
# blocks at D=64): the 46 D=64 forward GPU tests and the rising-score tests against
# float64, then the A/B against the exact rescale where it is on (s55_lazy_causal_ab.py).
source benchmarks/sessions/common.sh
BUDGET=330
NOTE="s55 call 3 (benchmarks/sessions/s55-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step rising python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k rising_scores
tail -3 $LOGS/rising.log
d64_forward_checks
tail -3 $LOGS/checks.log
step lazy python benchmarks/sessions/s55_lazy_causal_ab.py --rounds 3
grep -E "best|B=|Error|error|DIFF" $LOGS/lazy.log | head -40
pack
