# Session 31, device call 1: where the fused backward's warp groups draw dropout's bits
# (s31_draw_order_ab.py: every variant's dK/dV bit for bit the default's, then fwd+bwd
# timed from CUDA graphs), and the fused backward's dropout GPU tests on the final tree.
source benchmarks/sessions/common.sh
BUDGET=560
step draw-order python benchmarks/sessions/s31_draw_order_ab.py --rounds 2
step gpu-fused-dropout python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "fused_backward_with_dropout or keep_mask"
cp $LOGS/*.log $OUT/ 2>/dev/null
pack
