# Session 31, device call 3 (an H100): call 2's CUDA-graph tables on the final tree
# (sparseflash and the peers in separate processes), then the fused backward's GPU tests.
source benchmarks/sessions/common.sh
BUDGET=560
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
MORE=("strided(sqrt(n))" "chunk(8)" "local(1)" bigbird sparse_transformer_strided)
run() {  # NAME METHODS... -- ARGS...: one benchmarks.attention process
  local name=$1; shift
  local methods=(); while [ "$1" != "--" ]; do methods+=("$1"); shift; done; shift
  step $name python -m benchmarks.attention --seq-lens 16384 --modes fwd fwd+bwd \
      --dtypes bfloat16 --methods "${methods[@]}" --out $RES/$name.json "$@" \
      --note "s31 call 3 (benchmarks/sessions/s31-call3.sh): $name in its own process"
}
for d in 64 128; do
    run sf-d$d-graph sparseflash -- --head-dims $d --timer cudagraph \
        --patterns "${PATTERNS[@]}" "${MORE[@]}"
    run peers-d$d-graph flex sdpa-cudnn -- --head-dims $d --timer cudagraph \
        --patterns "${PATTERNS[@]}" "${MORE[@]}"
done
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-fused python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "fused_backward"
pack
