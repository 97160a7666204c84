# Session 33, device call 3: a clock trace of the D=128 ping-pong forward's work items
# (branch s33-trace), s33_trace.py.
source benchmarks/sessions/common.sh
BUDGET=400
step trace python benchmarks/sessions/s33_trace.py $RES/trace
cat $LOGS/trace.log
pack
