# Session 26, device call 7 (one H100): call 5's `--timer cudagraph` processes (every
# method's calls replayed from a CUDA graph; sparseflash and the peers in separate
# processes) on an H100, the other GPU.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
EXTRA=("strided(sqrt(n))" "chunk(8)" "local(1)" bigbird sparse_transformer_strided)
run() {  # NAME METHODS... -- ARGS...: one benchmarks.attention process
  local name=$1; shift
  local methods=(); while [ "$1" != "--" ]; do methods+=("$1"); shift; done; shift
  step $name python -m benchmarks.attention --seq-lens 16384 --modes fwd fwd+bwd \
      --dtypes bfloat16 --methods "${methods[@]}" --out $RES/$name.json "$@" \
      --note "s26 call 7 (benchmarks/sessions/s26-call7.sh): $name in its own process"
}
for d in 64 128; do
    run sf-d$d-graph sparseflash -- --head-dims $d --timer cudagraph \
        --patterns "${PATTERNS[@]}" "${EXTRA[@]}"
    run peers-d$d-graph flex sdpa-cudnn -- --head-dims $d --timer cudagraph \
        --patterns "${PATTERNS[@]}" "${EXTRA[@]}"
done
pack
