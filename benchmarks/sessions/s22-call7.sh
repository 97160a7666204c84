# Session 22, device call 7 (nvidia-h200, one GPU): Nsight Compute's counters of the
# Gluon forwards and the fused backward (s22_ncu_probe.py), clocks left alone.
source benchmarks/sessions/common.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" | tee $LOGS/ncu-where.log
step ncu "$NCU" --clock-control none --profile-from-start off \
    --kernel-name regex:"hopper_fused_backward_kernel|pingpong_forward_kernel|hopper_forward_kernel" \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy \
    -o $RES/probe python benchmarks/sessions/s22_ncu_probe.py
step report "$NCU" --import $RES/probe.ncu-rep --page details --print-units base
pack
# Call 8 (the same machine, warm) read the raw metrics of that report:
#   ncu --import .device-out/s22-call7/results/probe.ncu-rep --page raw --print-units base
# (carried from this machine), kept filtered as results/NVIDIA-H200-ncu-stalls-s22.log.
