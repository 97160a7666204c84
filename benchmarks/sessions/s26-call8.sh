# Session 26, device call 8 (one H100/H200): after the review moved the dropout seed's
# read into common.dropout_seed (normalised PTX unchanged under Triton 3.6 and 3.9), the
# GPU tests that run the Triton kernels with dropout, and the CUDA-graph ones.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-dropout python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "dropout or graph or replay"
pack
