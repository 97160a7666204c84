# Session 35, device call 2 (an H100): the passes last head first as they would land
# (delta on 8 warps, dQ cast by dq_cast_kernel) -- bfloat16 fused-backward cases against
# float64 and the cast's rounding first, then alternating with main's passes
# (s35_passes_ab.py), then the README's CUDA-graph tables at D=128 and 64 on this tree.
source benchmarks/sessions/common.sh
BUDGET=590
NOTE="s35 call 2 (benchmarks/sessions/s35-call2.sh)"
step checks python -m pytest -q -x tests/test_gpu.py -k "(fused_backward_against and dtype1) or dq_cast"
tail -3 $LOGS/checks.log
step passes python benchmarks/sessions/s35_passes_ab.py --rounds 3
grep -E "best|DIFFER|NOT FINITE" $LOGS/passes.log
graph_tables 128
graph_tables 64
pack
