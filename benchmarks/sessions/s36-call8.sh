# Session 36, device call 8 (an H200): the fused backward as landed (D=64 draws late, or
# early/late with partial blocks; 128 x 64 tiles for dropout on partial blocks) -- every
# dropout case and the D=64 cases against float64, in both dtypes, then the tiles'
# A/B again on this GPU (s36_d64_dropout_tiles.py; call 7 ran it on an H100).
source benchmarks/sessions/common.sh
BUDGET=560
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "fused_backward_with_dropout or (fused_backward_against and D64)"
tail -3 $LOGS/checks.log
step tiles python benchmarks/sessions/s36_d64_dropout_tiles.py --rounds 1
grep -E "best|DIFFER" $LOGS/tiles.log
pack
