# Session 9, device call 3 (nvidia-h200, one GPU). Call 2 found a table-read key block
# costing the minimal forward 15-20% (dense D=64 443 -> 373 TFLOP/s, D=128 531 -> 426), the
# gap between that probe and sparseflash. This tree walks consecutive runs of blocks
# (dense, banded, causal rows and columns) with computed offsets in the forward, dQ and
# dK/dV kernels (common.consecutive_run); other lists still read the table.
# 1. tests/test_gpu.py on this tree.
# 2. The tree before (d146d31, .carry/old-tree.tar, from its own directory) against this
#    one, sparseflash only, two alternating rounds; round 1 of the new tree also runs
#    FlexAttention and cuDNN (the README's table). Autotuner picks printed.
# 3. Per-kernel GPU time, old and new (profile_call): dense D=128, local(3) D=64.
# Needs: carry .carry/old-tree.tar.
source benchmarks/sessions/common.sh
old_tree .carry/old-tree.tar
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
export TRITON_PRINT_AUTOTUNING=1
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for round in 1 2; do
  for d in 64 128; do
    args=(--seq-lens 16384 --head-dims $d --dtypes bfloat16 --patterns "${PATTERNS[@]}"
          --modes fwd fwd+bwd)
    old ab-d$d-old-r$round python -m benchmarks.attention "${args[@]}" --methods sparseflash \
        --out $RES/ab-d$d-old-r$round.json --note "s9 call 3: before v11 (d146d31), round $round"
    methods=(--methods sparseflash)
    [ $round = 1 ] && methods=(--methods sparseflash flex sdpa-cudnn)
    step ab-d$d-new-r$round python -m benchmarks.attention "${args[@]}" "${methods[@]}" \
        --out $RES/ab-d$d-new-r$round.json --note "s9 call 3: v11 consecutive runs, round $round"
  done
done
unset TRITON_PRINT_AUTOTUNING
for prof in "dense 128" "local(3) 64"; do
  set -- $prof
  old prof-$1-d$2-old python -m benchmarks.profile_call --pattern "$1" --seq-len 16384 --head-dim $2
  step prof-$1-d$2-new python -m benchmarks.profile_call --pattern "$1" --seq-len 16384 --head-dim $2
done
pack
