# Session 22, device call 4 (nvidia-h100-x1): the D=64 tiles A/B of call 1 on an H100
# (s22_d64_tiles_ab.py), the fused backward's GPU tests on the library's tiles, then the
# README's H100 table (with kernel_ms), sparseflash and the peers in separate processes.
source benchmarks/sessions/common.sh
step ab python benchmarks/sessions/s22_d64_tiles_ab.py --rounds 1
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused or deterministic"
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s22 call 4 (benchmarks/sessions/s22-call4.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s22 call 4 (benchmarks/sessions/s22-call4.sh): the peers in their own process"
done
pack
