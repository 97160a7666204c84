# Session 54, device call 12: call 1's source-level warp stall samples of hopper's own D=64
# forward (local(1), local(3), dense) on the final tree, whose refill runs under the score
# product: the loop's K/V waits and the MMA waits against call 1's (s54_stall_sites.py).
source benchmarks/sessions/common.sh
BUDGET=150
NOTE="s54 call 12 (benchmarks/sessions/s54-call12.sh)"
forward_stall_sites
gzip $RES/source.csv
pack
