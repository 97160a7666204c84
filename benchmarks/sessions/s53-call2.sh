# Session 53, device call 2: the chained forward with its last P V issued before the
# following item's start (PV_FIRST) against call 1's order and hopper's own kernel
# (s53_chain_ab.py --pv-first), then its GPU tests (hopper_chain.AVAILABLE was missing in
# call 1, which failed every one of them before it ran).
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s53 call 2 (benchmarks/sessions/s53-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step chain-ab-pv python benchmarks/sessions/s53_chain_ab.py --pv-first --rounds 2
grep -E "best|B=" $LOGS/chain-ab-pv.log
step chain-checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "test_chain_forward"
tail -8 $LOGS/chain-checks.log
pack
