# Session 45, device call 1: do the forwards run at the power limit too, and do the sparse
# fwd+bwd? benchmarks.clocks (session 44) with --mode fwd at both head dims for all three
# methods, and with --pattern "local(3)" (fwd+bwd, D=64) for sparseflash and Flex; each
# run's record in results/NVIDIA-H200-clocks.json.
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s45 call 1 (benchmarks/sessions/s45-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for d in 64 128; do
    step clocks-fwd-d$d python -m benchmarks.clocks --head-dim $d --mode fwd \
        --methods sparseflash sdpa-cudnn flex --out $RES/NVIDIA-H200-clocks.json \
        --note "$NOTE: forward, D=$d"
    cat $LOGS/clocks-fwd-d$d.log
done
step clocks-local3-d64 python -m benchmarks.clocks --head-dim 64 --pattern "local(3)" \
    --methods sparseflash flex --out $RES/NVIDIA-H200-clocks.json \
    --note "$NOTE: local(3) fwd+bwd, D=64"
cat $LOGS/clocks-local3-d64.log
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s45c1.tar.gz" -C $WORK results logs
