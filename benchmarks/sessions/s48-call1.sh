# Session 48, device call 1: where a diagonal tile's time goes. The probe A/B
# (s48_diag_probe_ab.py, branch s48-diag-probe), then layouts alone: every row one tile,
# full or partial (local(0) against causal & local(0)), causal against causal | local(0),
# and dense at N = 1,000 (a ragged last block, the bounds code) against 1,024.
source benchmarks/sessions/common.sh
BUDGET=540
NOTE="s48 call 1 (benchmarks/sessions/s48-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step probe-ab python benchmarks/sessions/s48_diag_probe_ab.py --rounds 2
grep "best\|^B=" $LOGS/probe-ab.log
step layouts python -m benchmarks.attention --seq-lens 1024 --head-dims 64 128 --modes fwd \
    --methods sparseflash --timer cudagraph --dtypes bfloat16 --out $RES/layouts.json \
    --patterns "local(0)" "causal & local(0)" causal "causal | local(0)" dense --note "$NOTE: layouts"
step ragged python -m benchmarks.attention --seq-lens 1000 --tokens 16000 --head-dims 64 128 \
    --modes fwd --methods sparseflash --timer cudagraph --dtypes bfloat16 --out $RES/ragged.json \
    --patterns dense causal --note "$NOTE: ragged"
grep -h "ms\b" $LOGS/layouts.log $LOGS/ragged.log | tail -30
grep -h "exit" $LOGS/*.log
pack
