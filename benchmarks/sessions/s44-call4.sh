# Session 44, device call 4: benchmarks.clocks (the module calls 1-3's probe became) on one
# GPU for all three methods at both head dims, each run's record in
# results/NVIDIA-H200-clocks.json: the clocks and the energy per call side by side.
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s44 call 4 (benchmarks/sessions/s44-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for d in 64 128; do
    step clocks-d$d python -m benchmarks.clocks --head-dim $d \
        --methods sparseflash sdpa-cudnn flex --out $RES/NVIDIA-H200-clocks.json \
        --note "$NOTE: D=$d"
    cat $LOGS/clocks-d$d.log
done
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s44c4.tar.gz" -C $WORK results logs
