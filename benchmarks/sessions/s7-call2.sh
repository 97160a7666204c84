# Session 7, device call 2 (nvidia-h200, one GPU): kernel checks and the v9 tile A/B.
# 1. tests/test_gpu.py on this tree (the session-6 kernel cleanup, the TMA and scale <= 0
#    tests, never run on a GPU so far).
# 2. v9 (five 8-warp tiles that ptxas compiles without spills at D=128 added to the
#    autotune candidates) against the tree before it (21cea56, .carry/old-tree.tar, run from
#    its own directory), alternating, alone on the GPU; the autotuner's picks printed.
# 3. The `butterfly` D=64 fwd+bwd regression of v8: per-kernel CUDA time, old vs new.
# Needs: carry .carry (old-tree.tar).
source benchmarks/sessions/common.sh
old_tree .carry/old-tree.tar
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
export TRITON_PRINT_AUTOTUNING=1
PATTERNS=(dense causal "local(3)" butterfly)
for d in 64 128; do
  args=(--seq-lens 16384 --head-dims $d --dtypes bfloat16 --patterns "${PATTERNS[@]}"
        --modes fwd fwd+bwd --methods sparseflash)
  old ab-d$d-old python -m benchmarks.attention "${args[@]}" --out $RES/ab-d$d-old.json \
      --note "s7 call 2: before v9 (21cea56)"
  step ab-d$d-new python -m benchmarks.attention "${args[@]}" --out $RES/ab-d$d-new.json \
      --note "s7 call 2: v9 tiles"
done
PROF=(--pattern butterfly --seq-len 16384 --head-dim 64)
old prof-bfly-old python -m benchmarks.profile_call "${PROF[@]}"
step prof-bfly-new python -m benchmarks.profile_call "${PROF[@]}"
pack
