# Session 56, device call 3: the D=128 lazy rescale on `causal` at 64K tokens
# (s56_lazy_d128_long_ab.py); Nsight Compute's counts of the D=64 forward with the lazy
# rescale forced on rows of full blocks, run and table walks (s56_ncu_lazy_full.py), with
# the memory workload (local loads and stores of the spilling variant).
source benchmarks/sessions/common.sh
BUDGET=400
NOTE="s56 call 3 (benchmarks/sessions/s56-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step long python benchmarks/sessions/s56_lazy_d128_long_ab.py --rounds 3
grep -E "best|B=|Error|error|DIFF" $LOGS/long.log | head -20
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
step ncu "$NCU" --clock-control none --profile-from-start off \
    --kernel-name regex:"hopper_forward_kernel" --section WarpStateStats \
    --section InstructionStats --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio|smsp__inst_executed_op_local_(ld|st).sum" \
    python benchmarks/sessions/s56_ncu_lazy_full.py
grep -E "profiling|Duration|Executed Instructions |Warp Cycles Per Issued|long_scoreboard|op_local" $LOGS/ncu.log | head -40
pack
