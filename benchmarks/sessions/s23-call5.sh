# Session 23, device call 5 (nvidia-h200, one GPU): the README's table on the persistent
# ping-pong forward (its PTX is call 3's, which passed the ping-pong tests), sparseflash
# and the peers in separate processes, then the Gluon forward's and the backward's GPU
# tests in the time left.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s23 call 5 (benchmarks/sessions/s23-call5.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s23 call 5 (benchmarks/sessions/s23-call5.sh): the peers in their own process"
done
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "gluon or fused or against_float64"
pack
