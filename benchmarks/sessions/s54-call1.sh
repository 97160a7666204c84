# Session 54, device call 1: source-level warp stall samples of hopper's own D=64 forward on
# local(1), local(3) and dense (s53_ncu_issue.py's cases), summarised by where their
# long-scoreboard stalls sit (s54_stall_sites.py) and by their hottest instructions.
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s54 call 1 (benchmarks/sessions/s54-call1.sh)"
forward_stall_sites
step hot python benchmarks/sessions/s22_sass_hot.py $RES/source.csv 25
gzip $RES/source.csv
pack
