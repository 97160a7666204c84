# Session 50, device call 4: whether the first process on a freshly started machine runs
# the same kernels slower (s50_same_kernels.py three times in a row, the GPU's clocks,
# power and throttle reasons sampled beside it).
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s50 call 4 (benchmarks/sessions/s50-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
    --format=csv -lms 500 > $LOGS/clocks.log 2>&1 &
SAMPLER=$!
for i in 1 2 3; do
    step same-$i python benchmarks/sessions/s50_same_kernels.py --rounds 3
    grep "best" $LOGS/same-$i.log
done
kill $SAMPLER
awk -F', ' 'NR > 1 {print $2, $4, $6}' $LOGS/clocks.log | sort | uniq -c | sort -rn | head -12
grep -h "exit" $LOGS/*.log
pack
