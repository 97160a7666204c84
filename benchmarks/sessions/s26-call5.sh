# Session 26, device call 5 (call 4's H200, still held): call 4's `--timer cudagraph`
# processes again after the fix its fwd+bwd rows needed (every fwd+bwd capture had failed:
# the references' autograd graphs and the timer's first output kept q's, k's and v's
# gradient nodes alive on the default stream).
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
EXTRA=("strided(sqrt(n))" "chunk(8)" "local(1)" bigbird sparse_transformer_strided)
run() {  # NAME METHODS... -- ARGS...: one benchmarks.attention process
  local name=$1; shift
  local methods=(); while [ "$1" != "--" ]; do methods+=("$1"); shift; done; shift
  step $name python -m benchmarks.attention --seq-lens 16384 --modes fwd fwd+bwd \
      --dtypes bfloat16 --methods "${methods[@]}" --out $RES/$name.json "$@" \
      --note "s26 call 5 (benchmarks/sessions/s26-call5.sh): $name in its own process"
}
for d in 64 128; do
    run sf-d$d-graph sparseflash -- --head-dims $d --timer cudagraph \
        --patterns "${PATTERNS[@]}" "${EXTRA[@]}"
    run peers-d$d-graph flex sdpa-cudnn -- --head-dims $d --timer cudagraph \
        --patterns "${PATTERNS[@]}" "${EXTRA[@]}"
done
pack
