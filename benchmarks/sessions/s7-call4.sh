# Session 7, device call 4 (nvidia-h200-x4): Path-X (128 px, 16K tokens) fine-tuning from
# the Path-64 model of call 3 (itself from the Pathfinder-32 model): resumed from call 3's
# checkpoint when it has one, started from the Path-64 weights otherwise.
# Needs: carry .carry (call 3's checkpoints).
source benchmarks/sessions/common.sh
DDP="torchrun --standalone --nproc-per-node 4 -m benchmarks.lra --config tuned $LRA_ARGS"
PX=(--task pathfinder128 --tag from64 --set lr=1e-4 --set steps=9984 --set warmup_steps=312
    --set eval_interval=624 --set checkpoint_interval=624)  # as in s7-call3.sh
PX_CKPT=.carry/lra-pathfinder128-tuned-from64-4xNVIDIA-H200.pt
P64_CKPT=.carry/lra-pathfinder64-tuned-from32-4xNVIDIA-H200.pt
END=$((START + BUDGET - 30))
minutes_left() { python -c "print(round(($END - $(date +%s)) / 60, 2))"; }

lra_data pathfinder128 tuned
if [ -e $PX_CKPT ]; then
    step px $DDP "${PX[@]}" --resume $PX_CKPT --max-minutes "$(minutes_left)"
else
    step px $DDP "${PX[@]}" --init-from $P64_CKPT --max-minutes "$(minutes_left)"
fi
EXTRA=ckpt pack
