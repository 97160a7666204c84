# Session 28, device call 6 (an H100): the final tree's dropout paths more widely (every
# GPU test with dropout in its name: CUDA-graph replays, the torch backend's twin, the
# fused cases; the CPU test files' dropout tests on the GPU), then the paper's E.6 setup
# with dropout 0.1 (fwd, bwd, fwd+bwd) against cuDNN, the backward now fused.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-dropout python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k dropout
step cpu-files-dropout python -m pytest -q -p no:cacheprovider tests/test_compile.py \
    tests/test_nn.py tests/test_attention.py -k dropout
step e6-dropout python -m benchmarks.paper_e6 --seq-lens 1024 4096 16384 \
    --modes fwd bwd fwd+bwd --methods sparseflash sparseflash-butterfly sdpa-cudnn \
    --out $RES/paper-e6-dropout-d64.json
pack
