# Session 36, device call 5 (an H200): the D=64 fused backward drawing dropout's bits
# late in both warp groups (hopper_fused.DRAW_ORDER, the new default) -- the dropout
# cases against float64 first, then s36_draw_order.py (late/late, split/split,
# early/late alternating; call 4 ran session 31's probe on an H100).
source benchmarks/sessions/common.sh
BUDGET=560
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "fused_backward_with_dropout or keep_mask"
tail -3 $LOGS/checks.log
step draw-order python benchmarks/sessions/s36_draw_order.py --rounds 2
grep -vE "^==" $LOGS/draw-order.log
pack
