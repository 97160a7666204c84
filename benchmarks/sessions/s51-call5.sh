# Session 51, device call 5: why a short eager call's host time varies 2x within one
# process: the garbage collector, or the backward's thread? (s51_host_spread.py)
# Result (log benchmarks/results/NVIDIA-H200-host-spread-s51-call5.log, NOTES v52): no
# old-generation collection ran; the spread stays with the collector off or frozen, and
# SDPA's calls spread as much: the host's jitter, not our Python.
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s51 call 5 (benchmarks/sessions/s51-call5.sh)"
step host-spread python benchmarks/sessions/s51_host_spread.py --rounds 20
cat $LOGS/host-spread.log
pack
