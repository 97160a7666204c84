# Session 36, device call 7 (an H100): the D=64 fused backward with dropout on 128 x 64
# tiles, which ptxas compiles without spills -- the D=64 fused-backward cases against
# float64 on those tiles first, then alternating with 128 x 128 (s36_d64_dropout_tiles.py).
source benchmarks/sessions/common.sh
BUDGET=560
BUDGET=200 step checks python benchmarks/sessions/s36_d64_dropout_tiles.py --pytest -q \
    -p no:cacheprovider tests/test_gpu.py -k "(fused_backward_against or fused_backward_with_dropout) and D64 and not dtype0"
tail -3 $LOGS/checks.log
step tiles python benchmarks/sessions/s36_d64_dropout_tiles.py --rounds 2
grep -E "best|DIFFER" $LOGS/tiles.log
pack
