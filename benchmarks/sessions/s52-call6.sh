# Session 52, device call 6: the D=64 forward GPU tests on the final tree (call 2's set,
# with the per-head GQA case whose backward call 2 found broken, and the fill).
source benchmarks/sessions/common.sh
BUDGET=330
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "(gluon_forward_against or own_forward_filling or d64_forward_choice or test_against_float64) and D64 and not test_tma"
tail -5 $LOGS/checks.log
pack
