# Session 22, device call 3 (nvidia-h200, one GPU): the GPU tests call 2 had no time left
# for (the file's last four), then the README's table with each row's kernel time
# (benchmarks.attention's kernel_ms), sparseflash and the peers in separate processes, and
# sparseflash's two processes again (call 2's table had slow short rows).
source benchmarks/sessions/common.sh
step tests-tail env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "pathfinder or direct_launches or candidates or every_candidate"
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s22 call 3 (benchmarks/sessions/s22-call3.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s22 call 3 (benchmarks/sessions/s22-call3.sh): the peers in their own process"
done
for d in 64 128; do
  step sf-d$d-again python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d-again.json \
      --note "s22 call 3 (benchmarks/sessions/s22-call3.sh): sparseflash again, a later process"
done
pack
