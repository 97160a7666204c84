# Session 19, device call 12 (nvidia-h100-x1, one GPU): the README's table on the final tree
# (the fused backward by default at D=128), sparseflash and the peers in separate
# processes (after LSE and delta by the loader warp, call 10).
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s19 call 12 (benchmarks/sessions/s19-call12.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s19 call 12 (benchmarks/sessions/s19-call12.sh): the peers in their own process"
done
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "fused or gluon or deterministic"
pack
