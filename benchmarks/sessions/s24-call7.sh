# Session 24, device call 7 (nvidia-h100-x1): the ping-pong forward's GPU tests on an H100
# (split K/V rings, two Q buffers; the default and two other depths), then the README's
# H100 table, sparseflash and the peers in separate processes.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "pingpong"
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 128 64; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s24 call 7 (benchmarks/sessions/s24-call7.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s24 call 7 (benchmarks/sessions/s24-call7.sh): the peers in their own process"
done
pack
