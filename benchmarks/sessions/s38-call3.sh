# Session 38, device call 3 (an H200): call 2's bfloat16 CUDA-graph tables again, D=64
# first, then the same tables in float16 (the H200's first float16 run since session 24);
# each job's rows copied to $OUT as it ends, in case the device time runs out first.
source benchmarks/sessions/common.sh
BUDGET=585
NOTE="s38 call 3 (benchmarks/sessions/s38-call3.sh)"
for args in "64" "128" "64 float16" "128 float16"; do
    graph_tables $args
    cp $RES/*.json $LOGS/*.log "$OUT"/ 2>/dev/null
done
grep -h "exit" $LOGS/*.log
pack
# (As run, the copies above left 17 files under $OUT, more than a call brings back: only 8
# came back, and a second command re-packed /tmp/session on the still-held machine into
# $OUT/s38c3.tar.gz. Copy one archive next time.)
