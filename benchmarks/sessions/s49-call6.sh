# Session 49, device call 6: the forward GPU tests with partial blocks, padding or empty
# rows (the kernel-choice cases among them) on the session's final kernels.
source benchmarks/sessions/common.sh
BUDGET=420
NOTE="s49 call 6 (benchmarks/sessions/s49-call6.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "(gluon_forward_against or pingpong_forward_against or d64_forward_choice or pingpong_forward_programs or pingpong_forward_with_dropout_against) and (causal or holes or pad or empty or per_head) and not dtype1"
tail -3 $LOGS/checks.log
grep -h "exit" $LOGS/*.log
pack
