# Session 26, device call 3 (call 2's machine, still held): call 2's runs again, each
# pair with the compiled run first, to see how much the throughputs move between runs.
source benchmarks/sessions/common.sh
SHORT=(--set eval_max_batches=4 --set checkpoint_interval=100000)
LISTOPS=(--task listops --steps 300 --set eval_interval=150 --set num_train=9600
         --set num_val=256 --set num_test=256 "${SHORT[@]}")
PF32=(--task pathfinder32 --steps 200 --set eval_interval=100 --set num_train=8192
      --set num_val=1024 --set num_test=1024 "${SHORT[@]}")
for mode in reduce-overhead eager; do
    extra=(); [ $mode = eager ] || extra=(--compile $mode)
    step listops-$mode $LRA "${LISTOPS[@]}" --tag $mode "${extra[@]}"
    step pf32-$mode $LRA "${PF32[@]}" --tag $mode "${extra[@]}"
done
for mode in reduce-overhead eager; do
    extra=(); [ $mode = eager ] || extra=(--compile $mode)
    step pf32-dense-$mode $LRA "${PF32[@]}" --layout dense --tag dense-$mode "${extra[@]}"
done
pack
