# Session 27, device call 3 (one H100/H200): the FlashAttention paper's E.6 setup (B=16,
# H=8, fp16, key padding with lengths uniform in [N-20, N]) without dropout, so that the
# padded calls run the Gluon kernels (dropout still takes the Triton ones), against cuDNN
# and FlexAttention with the same padding; D=64 (the paper's) and 128. Then the ping-pong
# forward's GPU tests that call 2 left out (one and three programs, ring depths) and the
# padding-and-compile test.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
METHODS=(sparseflash sparseflash-butterfly sdpa-cudnn flex flex-butterfly)
for d in 64 128; do
    step e6-nodropout-d$d python -m benchmarks.paper_e6 --dropout 0 --head-dim $d \
        --seq-lens 1024 4096 16384 --modes fwd fwd+bwd --methods "${METHODS[@]}" \
        --out $RES/paper-e6-nodropout-d$d.json
done
step gpu-pingpong python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "pingpong_forward_programs or ring_depths or padding_and_declared"
pack
