# Session 26, device call 2 (one H100/H200): LRA training runs, eager against
# `--compile reduce-overhead` (new in session 26), on one machine: ListOps (N = 2,000,
# batch 32) and Pathfinder-32 (N = 1,024, batch 512; the config's sparse layout, then
# dense). Short runs on small splits: the second of two evaluation intervals gives
# training throughput after compilation and autotuning.
source benchmarks/sessions/common.sh
SHORT=(--set eval_max_batches=4 --set checkpoint_interval=100000)
LISTOPS=(--task listops --steps 300 --set eval_interval=150 --set num_train=9600
         --set num_val=256 --set num_test=256 "${SHORT[@]}")
PF32=(--task pathfinder32 --steps 200 --set eval_interval=100 --set num_train=8192
      --set num_val=1024 --set num_test=1024 "${SHORT[@]}")
for mode in eager reduce-overhead; do
    extra=(); [ $mode = eager ] || extra=(--compile $mode)
    step listops-$mode $LRA "${LISTOPS[@]}" --tag $mode "${extra[@]}"
    step pf32-$mode $LRA "${PF32[@]}" --tag $mode "${extra[@]}"
done
for mode in eager reduce-overhead; do
    extra=(); [ $mode = eager ] || extra=(--compile $mode)
    step pf32-dense-$mode $LRA "${PF32[@]}" --layout dense --tag dense-$mode "${extra[@]}"
done
pack
