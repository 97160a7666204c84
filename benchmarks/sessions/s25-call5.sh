# Session 25, device call 5 (nvidia-h200, one GPU): LRA training steps under
# torch.compile(mode="reduce-overhead") again, the peak memory now taken from the first
# warm-up step (call 4's figures missed the CUDA graphs' pool), ListOps's sparse pattern
# (call 4 ran out of time), and Pathfinder-64 (N = 4096), eager against reduce-overhead.
source benchmarks/sessions/common.sh
step lra-speed-pf32-reduce-overhead python -m benchmarks.lra.speed --task pathfinder32 \
    --batch-size 32 --iters 10 --out-dir $RES --compile reduce-overhead
step lra-speed-listops-reduce-overhead python -m benchmarks.lra.speed --task listops \
    --batch-size 8 --iters 10 --out-dir $RES --compile reduce-overhead
for mode in eager reduce-overhead; do
    extra=(); [ $mode = eager ] || extra=(--compile $mode)
    step lra-speed-pf64-$mode python -m benchmarks.lra.speed --task pathfinder64 \
        --batch-size 8 --iters 10 --out-dir $RES "${extra[@]}"
done
pack
