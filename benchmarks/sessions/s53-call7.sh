# Session 53, device call 7: Nsight Compute's instruction and issue counts of hopper's own
# D=64 forward on local(1), local(3) and dense (s53_ncu_issue.py).
source benchmarks/sessions/common.sh
BUDGET=200
NOTE="s53 call 7 (benchmarks/sessions/s53-call7.sh)"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
step ncu "$NCU" --clock-control none --profile-from-start off --kernel-name regex:"hopper_forward_kernel" \
    --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active \
    --section WarpStateStats python benchmarks/sessions/s53_ncu_issue.py
cat $LOGS/ncu.log | grep -E "profiling|hopper_forward|inst_executed|issue_active|duration|cycles_active|warps_active|Stall|stall|==" | head -80
pack
