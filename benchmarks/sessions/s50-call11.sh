# Session 50, device call 11: the host scripts of calls 8 and 9 after sharing their setup
# (short_steps) and benchmarks.overhead's timer, run short to check that they still run.
source benchmarks/sessions/common.sh
BUDGET=200
NOTE="s50 call 11 (benchmarks/sessions/s50-call11.sh)"
step host-threads python benchmarks/sessions/s50_host_threads.py --iters 20 --rounds 1
grep -v Warn $LOGS/host-threads.log
step host-profile python benchmarks/sessions/s50_host_profile.py --iters 10
grep -c "fwd+bwd calls" $LOGS/host-profile.log
grep -h "exit" $LOGS/*.log
pack
