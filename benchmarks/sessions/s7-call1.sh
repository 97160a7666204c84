# Session 7, device call 1 (nvidia-h200-x4): the Path-X recipe's first stage, Pathfinder-64
# pretraining, data-parallel over the 4 GPUs (`torchrun`, the harness's first GPU DDP run).
# The tuned recipe (`--config tuned`) with its schedule cut to 12,480 steps (of 46,800) so
# that it finishes inside one call; then, with what is left, Path-X (128 px) fine-tuning from
# its best weights (positions interpolated), resumed by call 2. While GPU 0 builds the
# Path-64 data, GPUs 2-3 run the two-GPU launcher test written in session 6.
# Result: EXTRA=ckpt pack (checkpoints travel to the next call through .carry/).
source benchmarks/sessions/common.sh
DDP="torchrun --standalone --nproc-per-node 4 -m benchmarks.lra --config tuned $LRA_ARGS"
P64=(--task pathfinder64 --tag s12k --set steps=12480)
# Path-X fine-tuning from the Path-64 run: half its peak lr, the schedule fixed here so
# that call 2 resumes the same run.
PX=(--task pathfinder128 --tag from64 --set lr=1e-4 --set steps=9984 --set warmup_steps=312
    --set eval_interval=624 --set checkpoint_interval=624)
P64_NAME=lra-pathfinder64-tuned-s12k-4xNVIDIA-H200
# finished NAME: true when run NAME's results say it ran its whole schedule
finished() { python -c "import json,sys; sys.exit(json.load(open('$RES/$1.json'))['status'] != 'finished')" 2>/dev/null; }
END=$((START + BUDGET - 30))
minutes_left() { python -c "print(round(($END - $(date +%s)) / 60, 2))"; }

(export CUDA_VISIBLE_DEVICES=2,3
 SPARSEFLASH_NO_AUTOTUNE=1 step gpu-2gpu python -m pytest -q -p no:cacheprovider \
     tests/test_gpu.py -k not_current) &
lra_data pathfinder64 tuned
wait
step p64 $DDP "${P64[@]}" --max-minutes "$(minutes_left)"
if finished $P64_NAME && [ "$(left)" -gt 150 ]; then
    step px $DDP "${PX[@]}" --init-from "$WORK/ckpt/$P64_NAME.pt" --max-minutes "$(minutes_left)"
fi
EXTRA=ckpt pack
