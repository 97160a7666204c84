# Session 39, device call 4 (an H100): the fused backward's GPU tests against float64 on
# main with the early dK for calls with dropout too (as landed: hopper_fused.dk_early).
source benchmarks/sessions/common.sh
BUDGET=400
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "fused_backward"
tail -3 $LOGS/checks.log
tar -czf "$OUT/s39c4.tar.gz" -C $WORK logs/checks.log
