# Session 56, device call 1: the lazy rescale in the D=128 ping-pong forward
# (hopper_pingpong.LAZY_RESCALE) checked against float64 (the rising-score tests at both
# head dims, the ping-pong forward's tests) and timed against the exact rescale
# (s56_lazy_d128_ab.py); the 46 D=64 forward tests (hopper._rescale_rows now serves both
# head dims); Nsight Compute's counts of D=64 `causal` exact against lazy (s56_ncu_lazy.py).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s56 call 1 (benchmarks/sessions/s56-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step rising python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k rising_scores
tail -3 $LOGS/rising.log
step lazy python benchmarks/sessions/s56_lazy_d128_ab.py --rounds 3
grep -E "best|B=|Error|error|DIFF" $LOGS/lazy.log | head -40
step pingpong python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "pingpong_forward_against"
tail -3 $LOGS/pingpong.log
d64_forward_checks
tail -3 $LOGS/checks.log
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
step ncu "$NCU" --clock-control none --profile-from-start off \
    --kernel-name regex:"hopper_forward_kernel" --section WarpStateStats \
    --section InstructionStats --section SpeedOfLight \
    python benchmarks/sessions/s56_ncu_lazy.py
grep -E "profiling|Duration|Executed Instructions |Warp Cycles Per Issued|Issued Ipc" $LOGS/ncu.log | head -40
pack
