# Session 36, device call 6 (an H100): the fused backward's draw places by head dim and
# partial blocks as landed (hopper_fused.DRAW_ORDER: D=64 late/late, with partial blocks
# early/late) -- the dropout cases against float64 first, then the paper's E.6 setup with
# dropout 0.1 and padding against cuDNN, session 29's command (s29-call2.sh).
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
BUDGET=560
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "fused_backward_with_dropout or keep_mask"
tail -3 $LOGS/checks.log
step e6-dropout python -m benchmarks.paper_e6 --seq-lens 1024 4096 16384 \
    --modes fwd bwd fwd+bwd --methods sparseflash sparseflash-butterfly sdpa-cudnn \
    --out $RES/paper-e6-dropout-d64.json
tail -40 $LOGS/e6-dropout.log
pack
