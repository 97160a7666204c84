# Session 32, device call 6 (an H200): the final tree's GPU tests of causal layouts (whose
# D=64 forwards now run the ping-pong kernel where rows are long), against float64.
source benchmarks/sessions/common.sh
BUDGET=330
step gpu-causal python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "(causal or d64_forward_choice) and not candidate_tile and not dropout"
tail -5 $LOGS/gpu-causal.log
pack
