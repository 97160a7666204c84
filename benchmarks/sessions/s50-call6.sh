# Session 50, device call 6: what dropout costs the forward, ours against FlashAttention-2's
# (SDPA's flash backend, which draws 8-bit numbers): the paper's E.6 setting (fp16, B=16,
# H=8, D=64) with dropout 0.1 and without, at N = 4096 and 16384, padding off for both
# methods (SDPA flash takes no mask), forward and fwd+bwd.
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s50 call 6 (benchmarks/sessions/s50-call6.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
E6="python -m benchmarks.paper_e6 --modes fwd fwd+bwd --seq-lens 4096 16384 --max-pad 0 --methods sparseflash sdpa-flash"
step dropout $E6 --dropout 0.1 --out $RES/paper-e6-nopad-dropout.json
step no-dropout $E6 --dropout 0 --out $RES/paper-e6-nopad-nodropout.json
grep -h "N= .*ms" $LOGS/dropout.log $LOGS/no-dropout.log
grep -h "exit" $LOGS/*.log
pack
