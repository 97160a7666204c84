# Session 50, device call 8: the host's time in a short eager fwd+bwd by torch.profiler's
# CPU events (s50_host_profile.py), sparseflash beside SDPA's flash backend.
source benchmarks/sessions/common.sh
BUDGET=240
NOTE="s50 call 8 (benchmarks/sessions/s50-call8.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step host-profile python benchmarks/sessions/s50_host_profile.py --iters 50
grep -h "exit" $LOGS/host-profile.log
pack
