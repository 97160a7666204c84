# Session 55, device call 1: hopper's own D=64 forward with the lazy rescale. First the 46
# D=64 GPU tests against float64 and the rising-score tests (the rescale's branch taken),
# then the A/B against the exact rescale (s55_lazy_rescale_ab.py).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s55 call 1 (benchmarks/sessions/s55-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step rising python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k rising_scores
tail -3 $LOGS/rising.log
d64_forward_checks
tail -5 $LOGS/checks.log
step lazy python benchmarks/sessions/s55_lazy_rescale_ab.py --rounds 3
grep -E "best|B=|Error|error|DIFF" $LOGS/lazy.log | head -40
pack
