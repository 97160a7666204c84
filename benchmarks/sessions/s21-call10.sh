# Session 21, device call 10 (nvidia-h200, one GPU): the merge and split-sum kernels of
# split rows/columns with pipelined chunk loads on 16-row tiles. s21_split_kernels_ab.py
# on this tree, on the tree before (carried: .carry/s21-before-split-kernels.tar), and on
# this one again; the GPU tests of split rows and the fused backward; then the README's
# table on this tree (sparseflash and the peers in separate processes).
source benchmarks/sessions/common.sh
step ab-new python benchmarks/sessions/s21_split_kernels_ab.py
old_tree .carry/s21-before-split-kernels.tar
old ab-old python benchmarks/sessions/s21_split_kernels_ab.py
step ab-new-again python benchmarks/sessions/s21_split_kernels_ab.py
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused or global or direct"
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s21 call 10 (benchmarks/sessions/s21-call10.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s21 call 10 (benchmarks/sessions/s21-call10.sh): the peers in their own process"
done
pack
