# Session 35, device call 3 (an H200): the tree with the backward's passes last head first
# (NOTES v37). Its bfloat16 fused-backward cases against float64 and the cast's bits,
# then the README's tables at both head dims, sparseflash and the peers in processes of
# their own, from CUDA graphs (ten patterns) and with do_bench's events (the five
# headline patterns), as s33-call7.sh ran them.
source benchmarks/sessions/common.sh
BUDGET=590
BUDGET=150 step checks python -m pytest -q -x -p no:cacheprovider tests/test_gpu.py \
    -k "(fused_backward_against and dtype1) or dq_cast"
tail -3 $LOGS/checks.log
NOTE="s35 call 3 (benchmarks/sessions/s35-call3.sh)"
graph_tables 128
graph_tables 64
event_tables 128
event_tables 64
pack
