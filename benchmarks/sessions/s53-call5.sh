# Session 53, device call 5: the final tree (neither hopper_chain nor the fused backward's
# new coordinates kept; hopper's row walk as _row_scores): the new per-head fused-backward
# case and the D=64 own-forward cases it touches, then the README's CUDA-graph table (both
# head dims, bf16).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s53 call 5 (benchmarks/sessions/s53-call5.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "(fused_backward_against and per_head) or (gluon_forward_against and per_head and D64)"
tail -3 $LOGS/checks.log
graph_tables 64
graph_tables 128
grep -h "exit" $LOGS/*.log
pack
