# Session 35, device call 4: the fused backward with K's and V's views taken in the tile
# loop (hopper_fused._tile_views) -- bfloat16 fused-backward cases against float64 first, then alternating with the kernel before it
# (s35_tile_views_ab.py on s35_fused_before.py, the previous commit's hopper_fused.py,
# present on the GPU machine only for this call).
source benchmarks/sessions/common.sh
BUDGET=290
BUDGET=100 step checks python -m pytest -q -x -p no:cacheprovider tests/test_gpu.py \
    -k "fused_backward_against and dtype1"
tail -3 $LOGS/checks.log
step views python benchmarks/sessions/s35_tile_views_ab.py benchmarks/sessions/s35_fused_before.py --rounds 1
grep -E "best|DIFFER" $LOGS/views.log
pack
