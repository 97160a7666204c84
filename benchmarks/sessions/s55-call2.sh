# Session 55, device call 2: the lazy rescale's two branch forms (each thread's, the warp's
# vote) on the rising-score tests, then the A/B against the exact rescale.
source benchmarks/sessions/common.sh
BUDGET=400
NOTE="s55 call 2 (benchmarks/sessions/s55-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
knob_checks rising1 hopper LAZY_RESCALE 1 rising_scores
knob_checks rising2 hopper LAZY_RESCALE 2 rising_scores
step lazy python benchmarks/sessions/s55_lazy_rescale_ab.py --rounds 3
grep -E "best|B=|Error|error|DIFF" $LOGS/lazy.log | head -40
pack
