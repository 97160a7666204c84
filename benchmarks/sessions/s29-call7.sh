# Session 29, device call 7 (an H100): the ping-pong forward's cases without dropout that
# call 6 ran out of time for (its kernel's arguments changed; its PTX without dropout did
# not), with one and three programs, and the CUDA-graph replay; the choice tests.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-pingpong python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "pingpong_forward_against or pingpong_forward_programs or pingpong_forward_replays or choice"
pack
