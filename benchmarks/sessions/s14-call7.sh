# Session 14, device call 7 (nvidia-h200, one GPU): the final kernels at N = 64K (the
# README plot's points), then the cold start at D=64 with an empty Triton cache (the forward
# and dQ tuning keys gained INDEX_REGS and ROW_RUNS this session).
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step sweep-n65536 python -m benchmarks.attention --seq-lens 65536 --head-dims 64 128 \
    --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
    --out $RES/sweep-n65536.json --note "s14 call 7 (benchmarks/sessions/s14-call7.sh), alone on the GPU"
rm -rf /tmp/tc-new-64
step cold-new-d64 env TRITON_CACHE_DIR=/tmp/tc-new-64 python benchmarks/cold_start.py \
    --head-dims 64 --label "session 14 tree, empty cache" --out $RES/cold-new-d64.json
pack
