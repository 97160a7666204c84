# Session 29, device call 6 (an H100): the final tree (the barrier in the Triton dK/dV
# tile with dropout). Every GPU test with dropout in its name, the keep masks and the
# forward's choice test; the dK/dV probe's settings once more; the Gluon and ping-pong
# forwards' cases without dropout (their kernels changed arguments).
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-dropout python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "dropout or keep_mask or gluon_forward_choice"
step dkdv python benchmarks/sessions/s29_dkdv_dropout.py default
step gpu-pingpong python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "pingpong_forward_against or gluon_forward_against or pingpong_forward_replays"
pack
