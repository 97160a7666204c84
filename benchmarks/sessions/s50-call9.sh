# Session 50, device call 9: a short eager fwd+bwd's host time with and without the
# autograd engine's device threads (s50_host_threads.py).
source benchmarks/sessions/common.sh
BUDGET=200
NOTE="s50 call 9 (benchmarks/sessions/s50-call9.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step host-threads python benchmarks/sessions/s50_host_threads.py --iters 50 --rounds 3
cat $LOGS/host-threads.log
pack
