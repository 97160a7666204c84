# Session 53, device call 3: the final tree (hopper_chain not kept; hopper's row walk as
# _row_scores, whose SASS with Triton 3.6 is call 1's "own" variant's, instruction for
# instruction): the 46 D=64 GPU tests of session 52's calls 2 and 6.
source benchmarks/sessions/common.sh
BUDGET=400
NOTE="s53 call 3 (benchmarks/sessions/s53-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "(gluon_forward_against or own_forward_filling or d64_forward_choice or test_against_float64) and D64 and not test_tma"
tail -5 $LOGS/checks.log
pack
