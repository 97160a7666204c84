# Session 45, device call 2: the fused backward filling its last wave (hopper_fused
# .FILL_LAST_WAVE): its A/B against whole columns at the README's shape
# (s45_fill_ab.py), then the GPU tests of the fused and the Gluon dK/dV backward against
# float64, the forced fill's cases first (the kernels' store of dK and dV changed in both).
source benchmarks/sessions/common.sh
BUDGET=575
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step fill-ab python benchmarks/sessions/s45_fill_ab.py --rounds 2
grep "best" $LOGS/fill-ab.log
step checks-fill python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k 'filling_its_last_wave or gluon_backward'
tail -3 $LOGS/checks-fill.log
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k '(fused_backward and not filling_its_last_wave) or non_positive_scale or dropout_matches_torch'
tail -3 $LOGS/checks.log
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s45c2.tar.gz" -C $WORK results logs
