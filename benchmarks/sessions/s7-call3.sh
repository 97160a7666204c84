# Session 7, device call 3 (nvidia-h200-x4). Call 1's Path-64 run (tuned recipe from
# scratch, 12,480 steps) never left chance: train loss 0.693 throughout. So a resolution
# curriculum, the paper's upsampling step one level earlier: Path-64 fine-tuned from the
# Pathfinder-32 model of session 6 (74.6% test; its 2-D positions interpolated 32 -> 64),
# at half that run's peak lr. If it leaves chance, Path-X (128 px) from its best weights
# with what is left of the call, resumed by the next x4 call.
# Needs: carry .carry (the Pathfinder-32 checkpoint of s6-call3.sh).
source benchmarks/sessions/common.sh
DDP="torchrun --standalone --nproc-per-node 4 -m benchmarks.lra --config tuned $LRA_ARGS"
P32=.carry/lra-pathfinder32-full-emb1-aug-d128-NVIDIA-H200.pt
P64=(--task pathfinder64 --tag from32 --set lr=1e-4 --set steps=9360)
P64_NAME=lra-pathfinder64-tuned-from32-4xNVIDIA-H200
# Path-X fine-tuning: the schedule is fixed here so that the next call resumes the same run.
PX=(--task pathfinder128 --tag from64 --set lr=1e-4 --set steps=9984 --set warmup_steps=312
    --set eval_interval=624 --set checkpoint_interval=624)
END=$((START + BUDGET - 30))
minutes_left() { python -c "print(round(($END - $(date +%s)) / 60, 2))"; }
# best_val NAME: the run's best validation accuracy (0 if it has no results)
best_val() { python -c "import json; print(json.load(open('$RES/$1.json'))['best_val_acc'] or 0)" 2>/dev/null || echo 0; }

lra_data pathfinder64 tuned
step p64 $DDP "${P64[@]}" --init-from $P32 --max-minutes "$(minutes_left)"
echo "Path-64 best val: $(best_val $P64_NAME)"
if python -c "import sys; sys.exit(not $(best_val $P64_NAME) > 0.55)" && [ "$(left)" -gt 150 ]; then
    step px $DDP "${PX[@]}" --init-from "$WORK/ckpt/$P64_NAME.pt" --max-minutes "$(minutes_left)"
fi
EXTRA=ckpt pack
