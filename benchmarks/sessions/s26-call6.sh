# Session 26, device call 6 (one H200): the README's `--config tuned` Pathfinder-32 recipe
# (batch 256, d=128 over 4 heads, 2 layers, dihedral augmentation), eager against
# `--compile reduce-overhead`, on small splits: training throughput over the second of two
# evaluation intervals, after compiling and autotuning.
source benchmarks/sessions/common.sh
TUNED=(--task pathfinder32 --config tuned --steps 400 --set eval_interval=200
       --set num_train=8192 --set num_val=1024 --set num_test=1024
       --set eval_max_batches=4 --set checkpoint_interval=100000)
LRA_TUNED="python -m benchmarks.lra $LRA_ARGS"
step tuned-eager $LRA_TUNED "${TUNED[@]}" --tag eager
step tuned-reduce-overhead $LRA_TUNED "${TUNED[@]}" --tag reduce-overhead --compile reduce-overhead
step tuned-eager-2 $LRA_TUNED "${TUNED[@]}" --tag eager-2
pack
