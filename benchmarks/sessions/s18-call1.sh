# Session 18, device call 1 (one GPU): where a short call's host time goes now
# (s18_host_timeline.py: D=64 and 128, local(3) and random+global, N=16K).
source benchmarks/sessions/common.sh
step timeline python benchmarks/sessions/s18_host_timeline.py --iters 40
pack
