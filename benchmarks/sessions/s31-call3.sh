# Session 31, device call 3 (an H100): call 2's CUDA-graph tables on the final tree
# (sparseflash and the peers in separate processes), then the fused backward's GPU tests.
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s31 call 3 (benchmarks/sessions/s31-call3.sh)"
graph_tables 64
graph_tables 128
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-fused python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "fused_backward"
pack
