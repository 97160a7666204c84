# Session 38, device call 2 (an H200): the README's CUDA-graph tables (bfloat16, D=128 and
# 64, sparseflash and the peers in processes of their own) on main as it stands (the
# backward's launches by programmatic dependent launch since session 37; the forward's
# merge by PDL measured slower in call 1 and left on branch s38-forward-pdl).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s38 call 2 (benchmarks/sessions/s38-call2.sh)"
graph_tables 128
graph_tables 64
grep -h "exit" $LOGS/*.log
pack
