# Session 26, device call 4 (one H200): the README's patterns and the sparse-efficiency
# ones timed with `benchmarks.attention --timer cudagraph` (new in session 26: every
# method's calls replayed from a CUDA graph, so no host launches in any method's time),
# sparseflash and the peers in separate processes as for the README's table; then the
# D=64 rows again with the default timer (CUDA events around calls) on this machine.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
EXTRA=("strided(sqrt(n))" "chunk(8)" "local(1)" bigbird sparse_transformer_strided)
run() {  # NAME METHODS... -- ARGS...: one benchmarks.attention process
  local name=$1; shift
  local methods=(); while [ "$1" != "--" ]; do methods+=("$1"); shift; done; shift
  step $name python -m benchmarks.attention --seq-lens 16384 --modes fwd fwd+bwd \
      --dtypes bfloat16 --methods "${methods[@]}" --out $RES/$name.json "$@" \
      --note "s26 call 4 (benchmarks/sessions/s26-call4.sh): $name in its own process"
}
for d in 64 128; do
    run sf-d$d-graph sparseflash -- --head-dims $d --timer cudagraph \
        --patterns "${PATTERNS[@]}" "${EXTRA[@]}"
    run peers-d$d-graph flex sdpa-cudnn -- --head-dims $d --timer cudagraph \
        --patterns "${PATTERNS[@]}" "${EXTRA[@]}"
done
run sf-d64-events sparseflash -- --head-dims 64 --patterns "${PATTERNS[@]}"
run peers-d64-events flex sdpa-cudnn -- --head-dims 64 --patterns "${PATTERNS[@]}"
pack
