# Session 50, device call 5: causal at 64K, fwd and fwd+bwd from CUDA graphs, both head
# dims and dtypes, sparseflash and the peers in processes of their own: the D=64 fwd+bwd
# read 1.798x Flex in bf16 and 1.75x in float16 in session 49 (the mark 1.8x), D=128 in
# float16 1.42x (the mark 1.4x). The kernels are session 49's.
source benchmarks/sessions/common.sh
BUDGET=540
NOTE="s50 call 5 (benchmarks/sessions/s50-call5.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for dtype in bfloat16 float16; do
    step sf-64k-$dtype python -m benchmarks.attention --seq-lens 65536 --modes fwd fwd+bwd \
        --dtypes $dtype --methods sparseflash --head-dims 64 128 --timer cudagraph \
        --patterns causal --out $RES/sf-64k-$dtype.json --note "$NOTE: sf-64k-$dtype in its own process"
    step peers-64k-$dtype python -m benchmarks.attention --seq-lens 65536 --modes fwd fwd+bwd \
        --dtypes $dtype --methods flex sdpa-cudnn --head-dims 64 128 --timer cudagraph \
        --patterns causal --out $RES/peers-64k-$dtype.json --note "$NOTE: peers-64k-$dtype in its own process"
done
grep -h " ms " $LOGS/*64k*.log | grep -v "^|"
grep -h "exit" $LOGS/*.log
pack
