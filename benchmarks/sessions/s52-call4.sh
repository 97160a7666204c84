# Session 52, device call 4: the README's CUDA-graph table (both head dims, bf16) on the
# final kernels (hopper's own forward without integer divisions in its coordinates).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s52 call 4 (benchmarks/sessions/s52-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
graph_tables 64
graph_tables 128
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "gluon_forward_against and (per_head or local or dense) and D64"
tail -3 $LOGS/checks.log
grep -h "exit" $LOGS/*.log
pack
