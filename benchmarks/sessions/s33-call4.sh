# Session 33, device call 4: the clock trace again with the walk handed over and the O
# store finished under the next item (s33_trace.py --both), then the session-32 form.
source benchmarks/sessions/common.sh
BUDGET=300
step trace-both python benchmarks/sessions/s33_trace.py $RES/trace-both --both
step trace python benchmarks/sessions/s33_trace.py $RES/trace
cat $LOGS/trace-both.log $LOGS/trace.log
pack
