# Session 8, device call 5 (nvidia-h200, one GPU): the README's speed-vs-N plot with the
# current kernels and launch path (its N = 1K, 4K and 64K points were session 3's), then
# fp16 at N = 16K (last measured in session 3). Same tree as s8-call3.sh.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for n in 1024 4096 65536; do
  step sweep-n$n python -m benchmarks.attention --seq-lens $n --head-dims 64 128 \
      --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
      --out $RES/sweep-n$n.json --note "s8 call 5, alone on the GPU"
done
step fp16 python -m benchmarks.attention --seq-lens 16384 --head-dims 64 128 --dtypes float16 \
    --patterns "${PATTERNS[@]}" --methods sparseflash flex sdpa-cudnn \
    --out $RES/fp16.json --note "s8 call 5, alone on the GPU"
pack
