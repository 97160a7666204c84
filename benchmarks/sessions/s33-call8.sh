# Session 33, device call 8: the final tree's other forward GPU tests against float64
# (call 7 ran out of its step's time after the ping-pong forward's 22 cases): the default
# dispatch's forward and backward, the Gluon forward's cases (O as acc * (1 / l) there too),
# the ping-pong forward with few programs (many items each: the deferred O store), other
# ring depths, with dropout (one Q buffer a warp group at D=128: no deferral), the D=64
# choice and a CUDA-graph replay.
source benchmarks/sessions/common.sh
BUDGET=590
step gpu-forward python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k \
    "test_against_float64 or gluon_forward_against or pingpong_forward_programs or ring_depths or pingpong_forward_with_dropout_against or d64_forward_choice or pingpong_forward_replays"
tail -5 $LOGS/gpu-forward.log
pack
