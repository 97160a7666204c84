# Session 57, device call 4: the lazy rescale on D=128 calls with dropout as the default
# (hopper_pingpong.LAZY_WITH_DROPOUT): the rising-score tests with dropout and without
# (both head dims), then the ping-pong forward's dropout tests, against float64.
# Result (log benchmarks/results/NVIDIA-H200-checks-s57-call4.log): 34 passed.
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s57 call 4 (benchmarks/sessions/s57-call4.sh)"
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k \
    "rising_scores or (pingpong_forward_with_dropout_against and D128)"
tail -3 $LOGS/checks.log
pack
