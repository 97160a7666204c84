# Session 45, device call 6: the fill's GPU tests (forward and backward, forced plans)
# again on the final kernels (hopper.fill_slot shared by both since call 4; machine code
# of the same instruction counts).
source benchmarks/sessions/common.sh
BUDGET=200
step checks-fill python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k 'filling_its_last_wave'
tail -3 $LOGS/checks-fill.log
tar -czf "$OUT/s45c6.tar.gz" -C $WORK results logs
