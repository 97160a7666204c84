# Session 31, device call 2 (call 1's H200): the README's tables again on the final tree,
# sparseflash and the peers in separate processes: timed from CUDA graphs (ten patterns,
# as s26-call5.sh) and with do_bench's CUDA events (the five headline patterns, as
# s24-call2/3.sh), D=64 and 128, bf16, 16K tokens, 16 heads, block 128.
source benchmarks/sessions/common.sh
BUDGET=570
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
# (The call ran with this list named EXTRA, which `pack` also reads as archive paths: tar
# complained about them and packed the results and logs.)
MORE=("strided(sqrt(n))" "chunk(8)" "local(1)" bigbird sparse_transformer_strided)
run() {  # NAME METHODS... -- ARGS...: one benchmarks.attention process
  local name=$1; shift
  local methods=(); while [ "$1" != "--" ]; do methods+=("$1"); shift; done; shift
  step $name python -m benchmarks.attention --seq-lens 16384 --modes fwd fwd+bwd \
      --dtypes bfloat16 --methods "${methods[@]}" --out $RES/$name.json "$@" \
      --note "s31 call 2 (benchmarks/sessions/s31-call2.sh): $name in its own process"
}
for d in 64 128; do
    run sf-d$d-graph sparseflash -- --head-dims $d --timer cudagraph \
        --patterns "${PATTERNS[@]}" "${MORE[@]}"
    run peers-d$d-graph flex sdpa-cudnn -- --head-dims $d --timer cudagraph \
        --patterns "${PATTERNS[@]}" "${MORE[@]}"
done
for d in 64 128; do
    run sf-d$d-events sparseflash -- --head-dims $d --patterns "${PATTERNS[@]}"
    run peers-d$d-events flex sdpa-cudnn -- --head-dims $d --patterns "${PATTERNS[@]}"
done
cat $LOGS/sf-d*-graph.log | grep -E "^(sparseflash)" | head -60
pack
