# Session 19, device call 3 (nvidia-h200, one GPU): the fused backward's walk started at
# each program's diagonal (hopper_fused._rotation). Its GPU tests; fwd+bwd at D=128 against
# the tree without the rotation (.carry/s19-norot.tar, commit of s19 call 2), alternating,
# two rounds; then the README's table (sparseflash and the peers in separate processes).
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused"
old_tree .carry/s19-norot.tar
ab() {  # NAME: fwd+bwd at D=128 with whichever tree the caller runs
  python -m benchmarks.attention --seq-lens 16384 --head-dims 128 --dtypes bfloat16 \
      --patterns dense causal "local(3)" butterfly "local(1) | global(1) | random(2)" \
      --modes fwd+bwd --methods sparseflash --out $RES/$1.json \
      --note "s19 call 3 (benchmarks/sessions/s19-call3.sh): $1"
}
export -f ab; export RES
for r in 1 2; do
  old ab-norot-$r bash -c "ab ab-norot-$r"
  step ab-rot-$r bash -c "ab ab-rot-$r"
done
for d in 128 64; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s19 call 3 (benchmarks/sessions/s19-call3.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s19 call 3 (benchmarks/sessions/s19-call3.sh): the peers in their own process"
done
pack
