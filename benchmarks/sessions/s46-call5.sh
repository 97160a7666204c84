# Session 46, device call 5: the fills' GPU tests (34: hopper's own forward, the ping-pong
# forward and the fused backward with the plan forced) on the final tree, whose tests
# force the plans through one helper (test_gpu._force_fill).
source benchmarks/sessions/common.sh
BUDGET=420
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks-fill python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k 'filling_its_last_wave'
tail -3 $LOGS/checks-fill.log
tar -czf "$OUT/s46c5.tar.gz" -C $WORK results logs
