# Session 46, device call 6: the fused backward's tests with dropout (12, and the fill's 4
# with dropout) on the tree whose dQ hand-offs' mbarriers, unused with dropout (named
# barriers, NAMED_DQ), are no longer initialised.
source benchmarks/sessions/common.sh
BUDGET=230
step checks-dropout python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k 'fused_backward_with_dropout or (fused_backward_filling and p0.1)'
tail -3 $LOGS/checks-dropout.log
tar -czf "$OUT/s46c6.tar.gz" -C $WORK results logs
