# Session 54, device call 1: source-level warp stall samples of hopper's own D=64 forward on
# local(1), local(3) and dense (s53_ncu_issue.py's cases), summarised by where their
# long-scoreboard stalls sit (s54_stall_sites.py) and by their hottest instructions.
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s54 call 1 (benchmarks/sessions/s54-call1.sh)"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
step ncu "$NCU" --clock-control none --profile-from-start off --kernel-name regex:"hopper_forward_kernel" \
    --section WarpStateStats --section SourceCounters --import-source yes \
    -o $RES/sass python benchmarks/sessions/s53_ncu_issue.py
step source "$NCU" --import $RES/sass.ncu-rep --page source --print-source sass --csv
cp $LOGS/source.log $RES/source.csv
step sites python benchmarks/sessions/s54_stall_sites.py $RES/source.csv 30
cat $LOGS/sites.log
step hot python benchmarks/sessions/s22_sass_hot.py $RES/source.csv 25
rm -f $RES/sass.ncu-rep
gzip $RES/source.csv
pack
