# Session 4, device call 2 (nvidia-h200-x4).
# GPUs 1-3: the three Pathfinder-32 runs of call 1 resumed to the end of their 62,400-step
#   schedules (checkpoints in .carry/).
# GPU 0: E.6 at N = 16384 with the new kernels (GPU-bound, while the training jobs generate
#   their data); then, on a quieter host, the small-N E.6 rows old vs new, alternated twice
#   (call 1 measured them while three data generators loaded the host), the host time of a
#   padded forward old vs new, and the new per-call host profile with padding + dropout.
# Needs: carry .carry (old.tar and the three checkpoints).
source benchmarks/sessions/common.sh
LRA="python -m benchmarks.lra --config full --no-progress --out-dir $RES"
NYS=(--task pathfinder32 --set num_layers=2 --set lr=1e-4 --set batch_size=256
     --set eval_batch_size=256 --set steps=62400 --set warmup_steps=312 --set schedule=linear
     --set eval_interval=624 --set checkpoint_interval=312 --max-minutes 8.4)
OLD=/tmp/old NEW=$PWD
mkdir -p $OLD && tar -xf .carry/old.tar -C $OLD
CK=.carry/lra-pathfinder32-full

(export CUDA_VISIBLE_DEVICES=1
 step pf-nys $LRA "${NYS[@]}" --set positional=learned --tag nys --resume $CK-nys-NVIDIA-H200.pt \
     --data-dir $WORK/data-pf1 --ckpt-dir $WORK/ckpt) &
(export CUDA_VISIBLE_DEVICES=2
 step pf-nys-2d $LRA "${NYS[@]}" --tag nys-2d --resume $CK-nys-2d-NVIDIA-H200.pt \
     --data-dir $WORK/data-pf2 --ckpt-dir $WORK/ckpt) &
(export CUDA_VISIBLE_DEVICES=3
 step pf-nys-dense $LRA "${NYS[@]}" --set positional=learned --layout dense --tag nys-dense \
     --resume $CK-nys-dense-NVIDIA-H200.pt --data-dir $WORK/data-pf3 --ckpt-dir $WORK/ckpt) &

(export CUDA_VISIBLE_DEVICES=0
 step e6-16k python -m benchmarks.paper_e6 --seq-lens 16384 \
     --methods sparseflash sparseflash-butterfly sdpa-cudnn --out $RES/e6-16k-new.json
 for round in 1 2; do
   step e6-small-new python -m benchmarks.paper_e6 --seq-lens 512 1024 2048 \
       --methods sparseflash sparseflash-butterfly --out $RES/e6-small-new-$round.json
   (cd $OLD && export PYTHONPATH=$OLD && step e6-small-old python -m benchmarks.paper_e6 \
       --seq-lens 512 1024 2048 --methods sparseflash sparseflash-butterfly \
       --out $RES/e6-small-old-$round.json)
 done
 for tree in $NEW $OLD; do for pad in "" --no-padding; do
   (export PYTHONPATH=$tree && step host-time python $NEW/benchmarks/sessions/s4_host_time.py 1024 $pad)
 done; done
 step overhead python -m benchmarks.overhead --pattern dense --seq-len 1024 --tokens 16384 \
     --heads 8 --dtype float16 --max-pad 20 --dropout 0.1 --top 25) &

wait
pack
