# Session 58, device call 7: the cold start on an H100 (target 5): first forward and
# backward of each headline layout at D=128 in a fresh process with an empty Triton cache,
# then a second process that finds the compiled kernels and the picks on disk.
# Result (log benchmarks/results/NVIDIA-H100-cold-start-s58-call7.log, JSON in
# benchmarks/results/cold-start/h100-cold*-d128-s58-call7.json): 24.5 s from an empty
# cache, 2.7 s in the second process.
source benchmarks/sessions/common.sh
BUDGET=200
NOTE="s58 call 7 (benchmarks/sessions/s58-call7.sh)"
export TRITON_CACHE_DIR=/tmp/s58-cold-cache
rm -rf $TRITON_CACHE_DIR
step cold-d128 python -m benchmarks.cold_start --head-dims 128 --out $RES/cold-d128.json
step warm-d128 python -m benchmarks.cold_start --head-dims 128 --out $RES/cold-d128-second.json
grep -h "exit" $LOGS/cold*.log $LOGS/warm*.log
pack
