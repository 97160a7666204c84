# Session 4, device call 1 (nvidia-h200-x4).
# GPU 0: GPU tests, memcheck, racecheck of the new padding walk limits and integer dropout
#   test; then A/B against the previous kernels (last session's tree, unpacked from
#   .carry/old.tar) on the paper's E.6 setup and on ListOps-like padding.
# GPUs 1-3: Pathfinder-32 with Nystromformer's LRA recipe (Xiong et al. 2021, their
#   lra_config.py: 2 layers, lr 1e-4, batch 256, 312 warmup steps, linear decay, 62,400 steps,
#   mean pooling, learned positions): block-sparse 1-D positions, block-sparse 2-D
#   positions, dense 1-D positions. Checkpoints come back to resume in the next call.
# Needs: carry .carry (old.tar).
source benchmarks/sessions/common.sh
LRA="python -m benchmarks.lra --config full --no-progress --out-dir $RES"
NYS=(--task pathfinder32 --set num_layers=2 --set lr=1e-4 --set batch_size=256
     --set eval_batch_size=256 --set steps=62400 --set warmup_steps=312 --set schedule=linear
     --set eval_interval=624 --set checkpoint_interval=312 --max-minutes 7.3)
OLD=/tmp/old
mkdir -p $OLD && tar -xf .carry/old.tar -C $OLD
E6=(--seq-lens 1024 4096 8192)
LISTOPS_PAD=(--seq-lens 2048 --batch 32 --max-pad 1548 --dropout 0)

(export CUDA_VISIBLE_DEVICES=0
 SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q tests/test_gpu.py
 SPARSEFLASH_NO_AUTOTUNE=1 step memcheck compute-sanitizer --tool memcheck python -m benchmarks.sanitize
 SPARSEFLASH_NO_AUTOTUNE=1 step racecheck compute-sanitizer --tool racecheck python -m benchmarks.sanitize
 step e6-new python -m benchmarks.paper_e6 "${E6[@]}" \
     --methods sparseflash sparseflash-butterfly sdpa-cudnn --out $RES/e6-new.json
 (cd $OLD && export PYTHONPATH=$OLD && step e6-old python -m benchmarks.paper_e6 "${E6[@]}" \
     --methods sparseflash sparseflash-butterfly --out $RES/e6-old.json)
 step pad-new python -m benchmarks.paper_e6 "${LISTOPS_PAD[@]}" \
     --methods sparseflash sparseflash-butterfly sdpa-cudnn flex --out $RES/pad-new.json
 (cd $OLD && export PYTHONPATH=$OLD && step pad-old python -m benchmarks.paper_e6 "${LISTOPS_PAD[@]}" \
     --methods sparseflash sparseflash-butterfly --out $RES/pad-old.json)
 step e6-nodrop-new python -m benchmarks.paper_e6 --seq-lens 8192 --dropout 0 \
     --methods sparseflash sdpa-cudnn --out $RES/e6-nodrop-new.json
 (cd $OLD && export PYTHONPATH=$OLD && step e6-nodrop-old python -m benchmarks.paper_e6 --seq-lens 8192 \
     --dropout 0 --methods sparseflash --out $RES/e6-nodrop-old.json)) &

(export CUDA_VISIBLE_DEVICES=1
 step pf-nys $LRA "${NYS[@]}" --set positional=learned --tag nys \
     --data-dir $WORK/data-pf1 --ckpt-dir $WORK/ckpt) &
(export CUDA_VISIBLE_DEVICES=2
 step pf-nys-2d $LRA "${NYS[@]}" --tag nys-2d --data-dir $WORK/data-pf2 --ckpt-dir $WORK/ckpt) &
(export CUDA_VISIBLE_DEVICES=3
 step pf-nys-dense $LRA "${NYS[@]}" --set positional=learned --layout dense --tag nys-dense \
     --data-dir $WORK/data-pf3 --ckpt-dir $WORK/ckpt) &

wait
EXTRA=ckpt pack
