# Session 32, device call 5 (an H100): the D=64 forward's new choice there. Its GPU tests
# by name, then the README's D=64 CUDA-graph table (ten patterns), sparseflash and the
# peers in separate processes, as s31-call3.sh ran it.
source benchmarks/sessions/common.sh
BUDGET=400
BUDGET=120 step gpu-d64-choice python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "d64_forward_choice" -v
tail -5 $LOGS/gpu-d64-choice.log
NOTE="s32 call 5 (benchmarks/sessions/s32-call5.sh)"
graph_tables 64
grep -h -E "^(sparseflash|flex|sdpa)" $LOGS/sf-d64-graph.log $LOGS/peers-d64-graph.log | head -60
pack
