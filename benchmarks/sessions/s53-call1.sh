# Session 53, device call 1: hopper_chain's persistent D=64 forward. A smoke test (one case,
# three programs, so a hang ends early), the A/B against hopper's own kernel and the tree
# before (s53_chain_ab.py; the old tree carried as .carry/s53-old.tar), then its GPU tests.
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s53 call 1 (benchmarks/sessions/s53-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
old_tree .carry/s53-old.tar
step smoke timeout 150 python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "test_chain_forward and dense-D64_0-3-ring"
tail -3 $LOGS/smoke.log
step chain-ab python benchmarks/sessions/s53_chain_ab.py $OLD --rounds 2
grep -E "best|B=" $LOGS/chain-ab.log
step chain-checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "test_chain_forward"
tail -8 $LOGS/chain-checks.log
pack
