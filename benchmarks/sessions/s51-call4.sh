# Session 51, device call 4: the do_bench table's host-bound stars on short D=64 sparse
# calls: host, or the L2 flushed before each call? (s51_cold_l2.py)
# Result (log benchmarks/results/NVIDIA-H200-cold-l2-s51-call4.log, NOTES v52): the L2 is
# not it (flushed replays 0.96-1.10x unflushed); the host's time a call varies 2x.
source benchmarks/sessions/common.sh
BUDGET=480
NOTE="s51 call 4 (benchmarks/sessions/s51-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step cold-l2 python benchmarks/sessions/s51_cold_l2.py --rounds 2
cat $LOGS/cold-l2.log
pack
