# Session 54, device call 9: is hopper's own D=64 forward near the L2's bandwidth? Nsight
# Compute's L2 and DRAM throughput of s53_ncu_issue.py's three cases (local(1), local(3),
# dense), after call 8 found a tile's scores slower when they wait for its V as well as its K.
source benchmarks/sessions/common.sh
BUDGET=240
NOTE="s54 call 9 (benchmarks/sessions/s54-call9.sh)"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
step l2 "$NCU" --clock-control none --profile-from-start off --kernel-name regex:"hopper_forward_kernel" \
    --metrics gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum.per_second,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.per_second,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second \
    python benchmarks/sessions/s53_ncu_issue.py
grep -E "profiling|gpu__time|lts__|dram__|sm__cycles" $LOGS/l2.log | head -60
pack
