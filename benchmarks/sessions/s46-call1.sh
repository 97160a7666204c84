# Session 46, device call 1: hopper's own D=64 forward filling its last wave
# (hopper.FILL_LAST_WAVE): its GPU tests against float64 with the fill forced, and the
# other kernels' fills again (hopper.chunk_walk keeps one count without partial blocks;
# the fused backward's coordinates read anew after its loop); then the A/B
# (s46_own_fill_ab.py).
source benchmarks/sessions/common.sh
BUDGET=560
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks-fill python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k 'filling_its_last_wave'
tail -3 $LOGS/checks-fill.log
step own-fill-ab python benchmarks/sessions/s46_own_fill_ab.py --rounds 2
grep "B=\|best\|FILL" $LOGS/own-fill-ab.log
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s46c1.tar.gz" -C $WORK results logs
