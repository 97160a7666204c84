# Session 24, device call 3 (nvidia-h200, one GPU): the README's D=64 rows (kernels
# unchanged since session 22; measured again so that the table is one session's), then
# the rows the issue asks for that no session had measured on the current kernels: the
# sparse-efficiency patterns strided, chunk, local(1) (2.3%) and two presets beside dense,
# and float16, at D = 64 and 128. sparseflash and the peers in separate processes.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
EXTRA_PATTERNS=(dense "strided(sqrt(n))" "chunk(8)" "local(1)" bigbird sparse_transformer_strided)
run() {  # NAME METHODS... -- ARGS...: one benchmarks.attention process
  local name=$1; shift
  local methods=(); while [ "$1" != "--" ]; do methods+=("$1"); shift; done; shift
  step $name python -m benchmarks.attention --seq-lens 16384 --modes fwd fwd+bwd \
      --methods "${methods[@]}" --out $RES/$name.json "$@" \
      --note "s24 call 3 (benchmarks/sessions/s24-call3.sh): $name in its own process"
}
run sf-d64 sparseflash -- --head-dims 64 --dtypes bfloat16 --patterns "${PATTERNS[@]}"
run peers-d64 flex sdpa-cudnn -- --head-dims 64 --dtypes bfloat16 --patterns "${PATTERNS[@]}"
run sf-extra sparseflash -- --head-dims 64 128 --dtypes bfloat16 --patterns "${EXTRA_PATTERNS[@]}"
run peers-extra flex sdpa-cudnn -- --head-dims 64 128 --dtypes bfloat16 --patterns "${EXTRA_PATTERNS[@]}"
run sf-fp16 sparseflash -- --head-dims 64 128 --dtypes float16 --patterns "${PATTERNS[@]}"
run peers-fp16 flex sdpa-cudnn -- --head-dims 64 128 --dtypes float16 --patterns "${PATTERNS[@]}"
pack
