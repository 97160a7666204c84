# Session 59, device call 2: Flex at N = 65,536 in float16 (as call 1 in bf16, beside
# `s58 call 4`'s sparseflash rows); dense D=64 fwd+bwd at 16K, sparseflash and Flex in
# alternating processes three times (the one bf16 Flex mark the H100 missed in session 58,
# 1.78x against 1.8x: how far the ratio moves between processes); the host's time per call.
# Result (records `s59 call 2`; logs in benchmarks/results/:
# NVIDIA-H100-attention-flex64k-s59-call1-2.log, -dense64-rounds-s59-call2.log,
# NVIDIA-H100-overhead-s59-call2.log; NOTES v60): float16
# at 64K misses the same two marks (1.73x, 1.80x); dense D=64 fwd+bwd 1.83x, 1.85x, 1.83x
# (sparseflash 484.8-489.1 TFLOP/s, Flex 264.7-265.8); host time a call: dense 1K 0.158 /
# 0.660 ms fwd / fwd+bwd, `local(3)` 16K 0.111 / 0.788.
source benchmarks/sessions/common.sh
BUDGET=585
NOTE="s59 call 2 (benchmarks/sessions/s59-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for d in 64 128; do
    step flex64k-fp16-d$d python -m benchmarks.attention --seq-lens 65536 --head-dims $d \
        --modes fwd fwd+bwd --dtypes float16 --methods flex --timer cudagraph \
        --patterns "${PATTERNS[@]}" --out $RES/flex64k-fp16-d$d.json \
        --note "$NOTE: Flex at 64K"
done
for round in 1 2 3; do
    for method in sparseflash flex; do
        step dense64-$method-$round python -m benchmarks.attention --seq-lens 16384 \
            --head-dims 64 --modes fwd+bwd --dtypes bfloat16 --methods $method \
            --timer cudagraph --patterns dense --out $RES/dense64-$method-$round.json \
            --note "$NOTE: dense D=64 round $round"
    done
done
step overhead-dense-1k python -m benchmarks.overhead --pattern dense --seq-len 1024 --top 15
step overhead-local3-16k python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 \
    --top 15
grep -h "exit" $LOGS/*.log
pack
