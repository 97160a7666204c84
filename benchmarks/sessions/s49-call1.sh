# Session 49, device call 1: the D=64 causal forward through hopper's own kernel at long
# rows (s49_causal_kernel_ab.py), and where the D=64 causal backward's time goes at 16K
# and 64K: causal against causal | local(0) (no partial blocks) and dense.
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s49 call 1 (benchmarks/sessions/s49-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step kernel-ab python benchmarks/sessions/s49_causal_kernel_ab.py --rounds 2
grep "best\|^B=" $LOGS/kernel-ab.log
step bwd python -m benchmarks.attention --seq-lens 16384 65536 --head-dims 64 --modes fwd bwd \
    --methods sparseflash --timer cudagraph --dtypes bfloat16 --out $RES/bwd.json \
    --patterns dense causal "causal | local(0)" --note "$NOTE: backward"
grep -h "ms\b" $LOGS/bwd.log | tail -20
grep -h "exit" $LOGS/*.log
pack
