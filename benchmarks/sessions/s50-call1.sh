# Session 50, device call 1: what key padding costs the D=64 causal forward in each kernel
# (s50_padded_kernel_ab.py), and hopper's own forward with each trip's P V in the trip
# (s50_trip_ab.py, the knob hopper.P_IN_TRIP).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s50 call 1 (benchmarks/sessions/s50-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step padded-ab python benchmarks/sessions/s50_padded_kernel_ab.py --rounds 2
grep "best\|^B=" $LOGS/padded-ab.log
step trip-ab python benchmarks/sessions/s50_trip_ab.py --rounds 2
grep "best\|^B=" $LOGS/trip-ab.log
grep "round" $LOGS/trip-ab.log | awk '{print $NF, $(NF-1), $(NF-2)}' | sort | uniq -c | head
grep -h "exit" $LOGS/*.log
pack
