# Session 34, device call 2: the fused backward's memory passes (delta and the dQ
# accumulator's zeroing; dQ's cast) timed against the backward (s34_bwd_passes.py).
source benchmarks/sessions/common.sh
BUDGET=500
step passes python benchmarks/sessions/s34_bwd_passes.py
# (This call's checks step ran no tests: pytest rejects "local(0)" in a -k expression.
# Call 4, s34-call4.sh, ran those cases.)
cat $LOGS/passes.log
pack
