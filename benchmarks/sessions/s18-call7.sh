# Session 18, device call 7 (nvidia-h100-x1): this tree on an H100.
# 1. The GPU tests the host-path changes touch most: direct launches against Triton's,
#    the Gluon kernels (descriptors kept by address), the kernel-swapping tests (plans).
# 2. The README's table as s18-call5.sh ran it (sparseflash, then the peers).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "direct or gluon or candidates_compile or tma"
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s18 call 7 (benchmarks/sessions/s18-call7.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s18 call 7 (benchmarks/sessions/s18-call7.sh): the peers in their own process"
done
step overhead python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 --head-dim 64 --top 5
pack
