# Session 52, device call 1: a clock trace of hopper's own D=64 forward on short rows and
# dense (s52_trace.py on the tree with s52_trace.patch applied).
source benchmarks/sessions/common.sh
BUDGET=300
(git apply benchmarks/sessions/s52_trace.patch || patch -p1 < benchmarks/sessions/s52_trace.patch) && echo "trace patch applied"
step trace python benchmarks/sessions/s52_trace.py $RES/trace
cat $LOGS/trace.log
pack
