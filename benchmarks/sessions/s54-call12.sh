# Session 54, device call 12: source-level warp stall samples of hopper's own D=64 forward on
# local(1), local(3) and dense on the final tree (the refill under the score product), as call 1 on the tree before.
# Summarised by s54_stall_sites.py (the loop's K/V waits against call 1's).
source benchmarks/sessions/common.sh
BUDGET=150
NOTE="s54 call 12 (benchmarks/sessions/s54-call12.sh)"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
step ncu "$NCU" --clock-control none --profile-from-start off --kernel-name regex:"hopper_forward_kernel" \
    --section WarpStateStats --section SourceCounters --import-source yes \
    -o $RES/sass python benchmarks/sessions/s53_ncu_issue.py
step source "$NCU" --import $RES/sass.ncu-rep --page source --print-source sass --csv
cp $LOGS/source.log $RES/source.csv
step sites python benchmarks/sessions/s54_stall_sites.py $RES/source.csv 30
cat $LOGS/sites.log
true
rm -f $RES/sass.ncu-rep
gzip $RES/source.csv
pack
