# Session 22, device call 6 (nvidia-h200, one GPU): the dense forwards' wall against kernel
# time (s22_wall_probe.py) with the SM clock and power logged beside it, then the host
# time of a D=64 local(3) call (benchmarks.overhead).
source benchmarks/sessions/common.sh
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 200 \
    > $LOGS/clocks.csv 2>&1 &
SMI=$!
step probe python benchmarks/sessions/s22_wall_probe.py
kill $SMI
step overhead python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 --head-dim 64 --top 25
pack
