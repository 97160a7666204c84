# Session 25, device call 4 (nvidia-h200, one GPU): the dropout seed read on the GPU (the
# Triton kernels take a SEED pointer): the GPU tests of the Triton kernels, dropout and
# CUDA graphs (a new test: a new mask each replay, the backward's mask the forward's), then
# LRA training steps eager against torch.compile(mode="reduce-overhead")
# (benchmarks.lra.speed --compile; its full configs have attention dropout 0.1).
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "not pingpong and not gluon and not fused" -rf
for mode in eager reduce-overhead; do
    extra=(); [ $mode = eager ] || extra=(--compile $mode)
    step lra-speed-pf32-$mode python -m benchmarks.lra.speed --task pathfinder32 \
        --batch-size 32 --iters 10 --out-dir $RES "${extra[@]}"
done
for mode in eager reduce-overhead; do
    extra=(); [ $mode = eager ] || extra=(--compile $mode)
    step lra-speed-listops-$mode python -m benchmarks.lra.speed --task listops \
        --batch-size 8 --iters 10 --out-dir $RES "${extra[@]}"
done
pack
