# Session 53, device call 3: the final tree (hopper_chain not kept; hopper's row walk as
# _row_scores, whose SASS with Triton 3.6 is call 1's "own" variant's, instruction for
# instruction): the 46 D=64 GPU tests of session 52's calls 2 and 6.
source benchmarks/sessions/common.sh
BUDGET=400
NOTE="s53 call 3 (benchmarks/sessions/s53-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
d64_forward_checks
tail -5 $LOGS/checks.log
pack
