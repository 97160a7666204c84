# Session 51, device call 5: why a short eager call's host time varies 2x within one
# process: the garbage collector, or the backward's thread? (s51_host_spread.py)
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s51 call 5 (benchmarks/sessions/s51-call5.sh)"
step host-spread python benchmarks/sessions/s51_host_spread.py --rounds 20
cat $LOGS/host-spread.log
pack
