# Session 3, device call 1 (nvidia-h200-x4). GPU 0: GPU tests, memcheck, racecheck, the
# paper's E.6 setup (dropout + padding). GPU 1: the N = 16K speed table, bf16 and fp16.
# GPU 2: ListOps, full config, lr 5e-4 (its 240 MB checkpoint stays there). GPU 3: Pathfinder-32 (checkpoint kept to resume).
source benchmarks/sessions/common.sh
LRA="python -m benchmarks.lra --config full --no-progress --out-dir $RES"
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")

(export CUDA_VISIBLE_DEVICES=0
 SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q tests/test_gpu.py
 SPARSEFLASH_NO_AUTOTUNE=1 step memcheck compute-sanitizer --tool memcheck python -m benchmarks.sanitize
 SPARSEFLASH_NO_AUTOTUNE=1 step racecheck compute-sanitizer --tool racecheck python -m benchmarks.sanitize
 step e6 python -m benchmarks.paper_e6 --seq-lens 512 2048 8192 16384 \
     --methods sparseflash sparseflash-butterfly sdpa-cudnn sdpa-efficient flex flex-butterfly \
     --out $RES/e6.json) &

(export CUDA_VISIBLE_DEVICES=1
 for dtype in bfloat16 float16; do for d in 64 128; do
   step speed-16k python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
       --dtypes $dtype --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
       --out $RES/attention-16k-$dtype-d$d.json
 done; done) &

(export CUDA_VISIBLE_DEVICES=2
 step listops $LRA --task listops --set lr=5e-4 --tag lr5e-4 --max-minutes 8.5 \
     --data-dir $WORK/data-listops --ckpt-dir /tmp/ckpt-listops) &

(export CUDA_VISIBLE_DEVICES=3
 step pathfinder32 $LRA --task pathfinder32 --set steps=15000 --tag 15k --max-minutes 7.5 \
     --data-dir $WORK/data-pf32 --ckpt-dir $WORK/ckpt) &

wait
EXTRA=ckpt pack
