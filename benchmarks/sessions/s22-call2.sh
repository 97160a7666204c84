# Session 22, device call 2 (nvidia-h200, one GPU): the README's table on the tree with the
# fused backward on 128 x 128 tiles at D=64 (sparseflash and the peers in separate
# processes), then the whole GPU test file.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s22 call 2 (benchmarks/sessions/s22-call2.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s22 call 2 (benchmarks/sessions/s22-call2.sh): the peers in their own process"
done
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider tests/test_gpu.py
pack
