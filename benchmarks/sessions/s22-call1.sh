# Session 22, device call 1 (nvidia-h200, one GPU): the fused backward's tiles at D=64
# (s22_d64_tiles_ab.py: 64 key rows against 128 with 64 or 128 query rows a step), the
# fused GPU tests under each candidate tile; then NOTES v23's open question, D=64 whole
# fwd+bwd calls with the fused backward (auto) against the two kernels (0), alternating
# processes, with benchmarks.overhead for each; then the D=64 short rows timed twice in
# one process (the slow rows of a table's first process).
source benchmarks/sessions/common.sh
step ab python benchmarks/sessions/s22_d64_tiles_ab.py
for tiles in "128, 64, 168" "128, 128, 168"; do
  step "tests-${tiles// /}" env SPARSEFLASH_NO_AUTOTUNE=1 python -c "
import sys, pytest
from sparseflash.kernels import hopper_fused
hopper_fused.TILES[64] = ($tiles)
print('TILES', hopper_fused.TILES)
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k', 'fused_backward_against']))"
done
P64=(butterfly "local(3)" dense)
for i in 1 2; do
  for setting in auto 0; do
    step whole-$setting-$i env SPARSEFLASH_FUSED_BACKWARD=$setting python -m benchmarks.attention \
        --seq-lens 16384 --head-dims 64 --dtypes bfloat16 --patterns "${P64[@]}" \
        --modes fwd+bwd --methods sparseflash --out $RES/whole-$setting-$i.json \
        --note "s22 call 1: SPARSEFLASH_FUSED_BACKWARD=$setting, round $i"
  done
done
for setting in auto 0; do
  step overhead-$setting env SPARSEFLASH_FUSED_BACKWARD=$setting python -m benchmarks.overhead \
      --pattern butterfly --seq-len 16384 --head-dim 64 --top 15
done
R="local(1) | global(1) | random(2)"
step twice python -m benchmarks.attention --seq-lens 16384 --head-dims 64 --dtypes bfloat16 \
    --patterns butterfly "$R" dense causal "local(3)" butterfly "$R" --modes fwd fwd+bwd \
    --methods sparseflash --out $RES/twice.json \
    --note "s22 call 1: D=64 short rows before and after the long ones, one process"
pack
