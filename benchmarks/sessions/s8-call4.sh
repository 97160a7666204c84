# Session 8, device call 4 (nvidia-h200, one GPU): atomic dQ again, the adds now TMA bulk
# reductions of whole tiles (tensor descriptor atomic_add -> cp.reduce.async.bulk.tensor)
# instead of one scalar red.global per element (v10, calls 1-2: 0.70-0.94x).
# 1. tests/test_gpu.py: the atomic-dQ cases first, the rest after the A/B.
# 2. A/B in one tree, SPARSEFLASH_ATOMIC_DQ=0 vs =1 (TMA reductions on this GPU), fwd+bwd,
#    N=16K, D=64 and 128, five layouts; per-kernel GPU time of two rows.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests-atomic python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "atomic or first_call or deterministic_backward"
export TRITON_PRINT_AUTOTUNING=1
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  for atomic in 0 1; do
    SPARSEFLASH_ATOMIC_DQ=$atomic step ab-d$d-atomic$atomic python -m benchmarks.attention \
        --seq-lens 16384 --head-dims $d --dtypes bfloat16 --patterns "${PATTERNS[@]}" \
        --modes fwd+bwd --methods sparseflash --out $RES/ab-d$d-atomic$atomic.json \
        --note "s8 call 4: SPARSEFLASH_ATOMIC_DQ=$atomic (TMA reductions)"
  done
done
unset TRITON_PRINT_AUTOTUNING
for atomic in 0 1; do
  SPARSEFLASH_ATOMIC_DQ=$atomic step prof-local3-d64-atomic$atomic python -m benchmarks.profile_call \
      --pattern "local(3)" --seq-len 16384 --head-dim 64
  SPARSEFLASH_ATOMIC_DQ=$atomic step prof-dense-d128-atomic$atomic python -m benchmarks.profile_call \
      --pattern dense --seq-len 16384 --head-dim 128
done
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests-rest python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "not (atomic or first_call or deterministic_backward)"
pack
