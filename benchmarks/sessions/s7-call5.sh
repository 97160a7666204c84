# Session 7, device call 5 (nvidia-h200, one GPU; the session's last ~4 device minutes):
# the curriculum's last step, Path-256 (256 px, 65,536 tokens) fine-tuned from the Path-X
# model of call 4, as far as the time allows: a smaller generated set (32K/2K/2K images
# instead of 160K/20K/20K) and a 600-step schedule (batch 32, LRA's at 256 px).
# Needs: carry .carry (call 4's Path-X checkpoint).
source benchmarks/sessions/common.sh
PX_CKPT=.carry/lra-pathfinder128-tuned-from64-4xNVIDIA-H200.pt
P256=(--task pathfinder256 --tag fromX --set lr=1e-4 --set steps=600 --set warmup_steps=60
      --set eval_interval=200 --set checkpoint_interval=200 --set num_train=32000
      --set num_val=2000 --set num_test=2000)
END=$((START + BUDGET - 20))
step p256 python -m benchmarks.lra --config tuned $LRA_ARGS "${P256[@]}" --init-from $PX_CKPT \
    --max-minutes "$(python -c "print(round(($END - $(date +%s)) / 60, 2))")"
pack
