# Session 8, device call 2 (nvidia-h200, one GPU): the atomic-dQ backward.
# 0. Since call 1: the autotuner zeroes the atomic dQ accumulator before each tuning run
#    (call 1 found Triton 3.6 benchmarking even one config, which summed dQ many times),
#    and atomic-dQ programs start their column walks at staggered offsets.
# 1. tests/test_gpu.py: both dQ paths against float64, determinism under
#    torch.use_deterministic_algorithms, the two paths against each other.
# 2. A/B in one tree: SPARSEFLASH_ATOMIC_DQ=0 (the second dQ kernel, 7 matrix products per
#    tile pair) against =1 (dQ by atomic adds in the dK/dV kernel, 5), fwd+bwd, N=16K,
#    D=64 and 128, five layouts; the autotuner's picks printed.
# 3. Per-kernel GPU time (profile_call) and host time (overhead) of both, where the wall
#    time of a sub-ms call is the host's.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
export TRITON_PRINT_AUTOTUNING=1
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  for atomic in 0 1; do
    SPARSEFLASH_ATOMIC_DQ=$atomic step ab-d$d-atomic$atomic python -m benchmarks.attention \
        --seq-lens 16384 --head-dims $d --dtypes bfloat16 --patterns "${PATTERNS[@]}" \
        --modes fwd+bwd --methods sparseflash --out $RES/ab-d$d-atomic$atomic.json \
        --note "s8 call 2: SPARSEFLASH_ATOMIC_DQ=$atomic"
  done
done
for atomic in 1; do  # the deterministic kernels' times: call 1
  SPARSEFLASH_ATOMIC_DQ=$atomic step prof-local3-d64-atomic$atomic python -m benchmarks.profile_call \
      --pattern "local(3)" --seq-len 16384 --head-dim 64
  SPARSEFLASH_ATOMIC_DQ=$atomic step prof-dense-d128-atomic$atomic python -m benchmarks.profile_call \
      --pattern dense --seq-len 16384 --head-dim 128
done
for atomic in 0 1; do
  SPARSEFLASH_ATOMIC_DQ=$atomic step overhead-atomic$atomic python -m benchmarks.overhead \
      --pattern "local(3)" --seq-len 16384 --top 12
done
pack
