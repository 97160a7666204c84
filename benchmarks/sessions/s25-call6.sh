# Session 25, device call 6 (nvidia-h200, one GPU): Pathfinder-32 and -64 training steps,
# eager against torch.compile(mode="reduce-overhead") on one machine, the peak memory under
# CUDA graphs now counted from the recording step (call 5 counted from the compiling step,
# whose benchmarking buffers set it).
source benchmarks/sessions/common.sh
for task in pathfinder32 pathfinder64; do
    batch=32; [ $task = pathfinder64 ] && batch=8
    for mode in eager reduce-overhead; do
        extra=(); [ $mode = eager ] || extra=(--compile $mode)
        step lra-speed-$task-$mode python -m benchmarks.lra.speed --task $task \
            --batch-size $batch --iters 10 --out-dir $RES "${extra[@]}"
    done
done
pack
