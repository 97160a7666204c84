# Session 4, device call 3 (nvidia-h200-x2). The two Pathfinder-32 runs that call 2's time
# limit stopped short of step 62,400, resumed to the end (test accuracy); GPU tests on the
# final tree (the padding-table reuse came after call 1's test run).
# Needs: carry .carry (the two checkpoints from call 2).
source benchmarks/sessions/common.sh
LRA="python -m benchmarks.lra --config full --no-progress --out-dir $RES"
NYS=(--task pathfinder32 --set num_layers=2 --set lr=1e-4 --set batch_size=256
     --set eval_batch_size=256 --set steps=62400 --set warmup_steps=312 --set schedule=linear
     --set eval_interval=624 --set checkpoint_interval=312 --set positional=learned)
CK=.carry/lra-pathfinder32-full

(export CUDA_VISIBLE_DEVICES=0
 step pf-nys $LRA "${NYS[@]}" --tag nys --resume $CK-nys-NVIDIA-H200.pt \
     --data-dir $WORK/data-pf1 --ckpt-dir $WORK/ckpt) &
(export CUDA_VISIBLE_DEVICES=0
 SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q tests/test_gpu.py) &
(export CUDA_VISIBLE_DEVICES=1
 step pf-nys-dense $LRA "${NYS[@]}" --layout dense --tag nys-dense \
     --resume $CK-nys-dense-NVIDIA-H200.pt --data-dir $WORK/data-pf3 --ckpt-dir $WORK/ckpt) &
wait
pack
