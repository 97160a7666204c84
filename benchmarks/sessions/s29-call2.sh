# Session 29, device call 2 (an H100): the ping-pong forward with dropout, checked. Every
# GPU test with dropout in its name (the ping-pong cases, one and three programs; the fused
# backward's; CUDA-graph replays; the torch backend's twin), the keep masks and the
# choice test; the CPU test files' dropout tests on the GPU; then the paper's E.6 setup
# with dropout 0.1 and padding against cuDNN.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-dropout python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "dropout or keep_mask or gluon_forward_choice"
step cpu-files-dropout python -m pytest -q -p no:cacheprovider tests/test_compile.py \
    tests/test_nn.py tests/test_attention.py -k dropout
step e6-dropout python -m benchmarks.paper_e6 --seq-lens 1024 4096 16384 \
    --modes fwd bwd fwd+bwd --methods sparseflash sparseflash-butterfly sdpa-cudnn \
    --out $RES/paper-e6-dropout-d64.json
pack
