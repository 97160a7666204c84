# Session 59, device call 3: why `local(1) | global(1) | random(2)` keeps 63% of the dense
# figure fwd+bwd at D=128 and 64K tokens on the H100 (76% at 16K; calls 1-2). The global
# block row (one query tile that every column's dQ adds into) and the global block column
# (one column of every query tile, split across programs) taken apart: the pattern without
# either, with the column only, with the row only, and whole, at 16K and 64K, both head
# dims; then each kernel's time in a fwd+bwd of the whole pattern and of the row-only one.
# Result (benchmarks/results/NVIDIA-H100-global-parts-s59-call3.json and .log, NOTES v60):
# neither part: at D=128 fwd+bwd all four lose 11-15% from 16K to 64K (`local(1) |
# random(2)` 376 -> 319 TFLOP/s), forwards none, D=64 none (320 -> 314 at most). The
# random blocks' backward at D=128: see s59_l2_model.py and
# s60-prepared.sh (written as s59-prepared.sh).
source benchmarks/sessions/common.sh
BUDGET=585
NOTE="s59 call 3 (benchmarks/sessions/s59-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
GLOBAL_PARTS=("local(1) | random(2)" "local(1) | random(2) | (global(1) & causal)"
              "local(1) | random(2) | (global(1) - (global(1) & causal))"
              "local(1) | global(1) | random(2)")
for d in 128 64; do
    step global-parts-d$d python -m benchmarks.attention --seq-lens 16384 65536 \
        --head-dims $d --modes fwd fwd+bwd --dtypes bfloat16 --methods sparseflash \
        --timer cudagraph --patterns "${GLOBAL_PARTS[@]}" --out $RES/global-parts-d$d.json \
        --note "$NOTE: global row and column apart"
done
for pattern in "${GLOBAL_PARTS[3]}" "${GLOBAL_PARTS[2]}" "${GLOBAL_PARTS[0]}"; do
    step profile-64k python -m benchmarks.profile_call --pattern "$pattern" \
        --seq-len 65536 --head-dim 128
done
grep -h "exit" $LOGS/*.log
pack
