# Session 53, device call 8: the warp stall reasons (per issued instruction) of hopper's own
# D=64 forward on local(1), local(3) and dense (s53_ncu_issue.py), beside call 7's counts.
source benchmarks/sessions/common.sh
BUDGET=150
NOTE="s53 call 8 (benchmarks/sessions/s53-call8.sh)"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
step stalls "$NCU" --clock-control none --profile-from-start off --kernel-name regex:"hopper_forward_kernel" \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio \
    python benchmarks/sessions/s53_ncu_issue.py
grep -E "profiling|stalled_(barrier|long_scoreboard|short_scoreboard|wait|gmma|mio_throttle|math_pipe|not_selected|selected|dispatch|lg_throttle|no_instruction|branch)_per" $LOGS/stalls.log | awk '{print $1, $NF}' | head -60
pack
