# Session 37, device call 3 (an H200): the race check and A/B of call 1 on this GPU
# (s37_pdl_ab.py; s37_base = `git archive be1fc06 sparseflash`), then the README's
# CUDA-graph tables (bfloat16, D=128 and 64) on the tree with programmatic dependent launch
# in the backward and the split columns' sums in one launch.
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s37 call 3 (benchmarks/sessions/s37-call3.sh)"
step pdl python benchmarks/sessions/s37_pdl_ab.py s37_base --rounds 2 --stress 40
grep -E "stress|best|DIFFER" $LOGS/pdl.log
graph_tables 128
graph_tables 64
grep -h "exit" $LOGS/*.log
pack
