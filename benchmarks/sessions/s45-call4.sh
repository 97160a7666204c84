# Session 45, device call 4: the persistent forward filling its last wave
# (hopper_pingpong.FILL_LAST_WAVE): its GPU tests against float64 with the fill forced, the
# fused backward's again (its chunk arithmetic now hopper.chunk_walk, shared), then its
# A/B against whole items (s45_fill_fwd_ab.py).
source benchmarks/sessions/common.sh
BUDGET=440
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks-fill python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k 'filling_its_last_wave'
tail -3 $LOGS/checks-fill.log
step fill-fwd-ab python benchmarks/sessions/s45_fill_fwd_ab.py --rounds 2
grep "B=\|best" $LOGS/fill-fwd-ab.log
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s45c4.tar.gz" -C $WORK results logs
