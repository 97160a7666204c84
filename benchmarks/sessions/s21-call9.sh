# Session 21, device call 9 (nvidia-h100-x1, one GPU): the README's table on the tree of call 8
# (the fused backward's dK and dV by TMA stores, by default at D=64 on every layout;
# sparseflash and the peers in separate processes), the GPU tests of the Gluon kernels and
# the deterministic backward, then the library's D=64 rows again in a second process
# (call 8's random+global D=64 fwd+bwd row took 0.954 ms against ~0.70 of kernels).
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s21 call 9 (benchmarks/sessions/s21-call9.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s21 call 9 (benchmarks/sessions/s21-call9.sh): the peers in their own process"
done
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "pingpong or gluon or fused or deterministic"
step sf-d64-again python -m benchmarks.attention --seq-lens 16384 --head-dims 64 \
    --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/sf-d64-again.json \
    --note "s21 call 9 (benchmarks/sessions/s21-call9.sh): sparseflash, second process"
pack
