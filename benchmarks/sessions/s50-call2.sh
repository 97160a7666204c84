# Session 50, device call 2: the FlashAttention paper's E.6 setup (B=16, H=8, D=64, fp16,
# dropout 0.1, key padding in [N-20, N]) on the H200 with this tree, N = 128 ... 65536
# (the H200 file held only session 4-6 kernels' rows), one process per length group so
# that each writes its rows; and the float16 causal points at 16K that the speed-vs-N
# figure still took from session 46.
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s50 call 2 (benchmarks/sessions/s50-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
attention_step sf-causal-fp16 sparseflash -- --head-dims 64 128 --timer cudagraph \
    --dtypes float16 --patterns causal
attention_step peers-causal-fp16 flex sdpa-cudnn -- --head-dims 64 128 --timer cudagraph \
    --dtypes float16 --patterns causal
E6="python -m benchmarks.paper_e6 --modes fwd bwd fwd+bwd"
step e6-short $E6 --seq-lens 128 256 512 1024 2048 --methods sparseflash \
    sparseflash-butterfly sdpa-cudnn sdpa-flash sdpa-efficient sdpa-math \
    --out $RES/paper-e6-short.json
step e6-4k8k $E6 --seq-lens 4096 8192 --methods sparseflash sparseflash-butterfly sdpa-cudnn \
    sdpa-flash --out $RES/paper-e6-4k8k.json
step e6-16k $E6 --seq-lens 16384 --methods sparseflash sparseflash-butterfly sdpa-cudnn \
    --out $RES/paper-e6-16k.json
step e6-32k $E6 --seq-lens 32768 --methods sparseflash sparseflash-butterfly sdpa-cudnn \
    --out $RES/paper-e6-32k.json
step e6-64k $E6 --seq-lens 65536 --methods sparseflash sparseflash-butterfly sdpa-cudnn \
    --out $RES/paper-e6-64k.json
for f in $LOGS/e6-*.log; do grep -E "N= *[0-9]+ fwd\+bwd|exit" $f; done
grep -h "exit" $LOGS/*.log
pack
