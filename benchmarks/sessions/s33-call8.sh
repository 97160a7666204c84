# Session 33, device call 8: the final tree's other forward GPU tests against float64 (the
# Gluon forward's cases, the default dispatch's forward and backward, the ping-pong
# forward with few programs and other ring depths, split rows).
source benchmarks/sessions/common.sh
BUDGET=590
step gpu-forward python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "gluon_forward or test_against_float64 or pingpong_forward_programs or ring_depths or split_rows or dropout_programs"
tail -5 $LOGS/gpu-forward.log
pack
