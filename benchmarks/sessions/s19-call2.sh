# Session 19, device call 2 (nvidia-h200, one GPU): the fused warp-specialised backward in
# the library (kernels/hopper_fused.py). First its GPU tests (against float64, the choice,
# deterministic algorithms) and the other Gluon backward tests; then fwd+bwd at D=128 with
# it (the default) and without it (SPARSEFLASH_FUSED_BACKWARD=0), alternating, two
# processes each; then D=64 with it forced.
source benchmarks/sessions/common.sh
export SPARSEFLASH_AUTOTUNE_CACHE=0
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused or gluon_backward or deterministic"
bench() {  # NAME FUSED D
  step $1 env SPARSEFLASH_FUSED_BACKWARD=$2 python -m benchmarks.attention --seq-lens 16384 \
      --head-dims $3 --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd+bwd \
      --methods sparseflash --out $RES/$1.json \
      --note "s19 call 2 (benchmarks/sessions/s19-call2.sh): SPARSEFLASH_FUSED_BACKWARD=$2"
}
for r in 1 2; do
  bench d128-two-kernels-$r 0 128
  bench d128-fused-$r auto 128
done
bench d64-fused 1 64
bench d64-two-kernels 0 64
pack
