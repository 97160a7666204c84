# Session 21, device call 12 (nvidia-h200, one GPU): the D=64 butterfly fwd+bwd row took
# 0.685-0.938 ms across this session's tables with the fused backward (0.746-0.782 with
# the two kernels in earlier sessions). Whole autograd calls, the fused backward
# (default) against the two kernels (SPARSEFLASH_FUSED_BACKWARD=0), alternating
# processes, then each setting's host time.
source benchmarks/sessions/common.sh
P=(butterfly "local(3)" dense)
for run in a b; do
  for setting in auto 0; do
    step fwdbwd-$setting-$run env SPARSEFLASH_FUSED_BACKWARD=$setting python -m benchmarks.attention \
        --seq-lens 16384 --head-dims 64 --dtypes bfloat16 --patterns "${P[@]}" --modes fwd+bwd \
        --methods sparseflash --out $RES/fwdbwd-$setting-$run.json \
        --note "s21 call 12: SPARSEFLASH_FUSED_BACKWARD=$setting, run $run"
  done
done
for setting in auto 0; do
  step overhead-$setting env SPARSEFLASH_FUSED_BACKWARD=$setting python -m benchmarks.overhead \
      --pattern butterfly --seq-len 16384 --head-dim 64 --top 0
done
pack
