# Session 58, device call 6: the cold start on an H100 (target 5): first forward and
# backward of each headline layout at D=64 in a fresh process with an empty Triton cache,
# then a second process that finds the compiled kernels and the picks on disk.
# Result (log benchmarks/results/NVIDIA-H100-cold-start-s58-call6.log, JSON in
# benchmarks/results/cold-start/h100-cold*-d64-s58-call6.json): 14.1 s for the five
# layouts' first calls from an empty cache, 2.5 s in the second process.
source benchmarks/sessions/common.sh
BUDGET=330
NOTE="s58 call 6 (benchmarks/sessions/s58-call6.sh)"
export TRITON_CACHE_DIR=/tmp/s58-cold-cache
rm -rf $TRITON_CACHE_DIR
step cold-d64 python -m benchmarks.cold_start --head-dims 64 --out $RES/cold-d64.json
step warm-d64 python -m benchmarks.cold_start --head-dims 64 --out $RES/cold-d64-second.json
grep -h "exit" $LOGS/cold*.log $LOGS/warm*.log
pack
