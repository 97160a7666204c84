# Session 17, device call 7 (nvidia-h200, one GPU): why call 6's D=64 short-row rows halved
# (local(3) forward 177 TFLOP/s against 400 in call 5 with the same kernel).
# 1. Those rows, sparseflash alone: default (Gluon forward), then SPARSEFLASH_GLUON=0.
# 2. The same with FlexAttention in the process (as in call 6's table).
# 3. Kernel times (profile_call) and host time per call (overhead) of local(3), both paths.
source benchmarks/sessions/common.sh
SHORT=("local(3)" butterfly "local(1) | global(1) | random(2)")
A="python -m benchmarks.attention --seq-lens 16384 --head-dims 64 --dtypes bfloat16 --modes fwd fwd+bwd"
step alone-auto $A --patterns "${SHORT[@]}" --methods sparseflash --out $RES/alone-auto.json --note "s17 call 7 diag"
SPARSEFLASH_GLUON=0 step alone-g0 $A --patterns "${SHORT[@]}" --methods sparseflash --out $RES/alone-g0.json --note "s17 call 7 diag"
step with-flex-auto $A --patterns "${SHORT[@]}" --methods sparseflash flex --out $RES/flex-auto.json --note "s17 call 7 diag"
SPARSEFLASH_GLUON=0 step with-flex-g0 $A --patterns "${SHORT[@]}" --methods sparseflash flex --out $RES/flex-g0.json --note "s17 call 7 diag"
step alone-auto-again $A --patterns "${SHORT[@]}" --methods sparseflash --out $RES/alone-auto2.json --note "s17 call 7 diag"
for g in auto 0; do
  SPARSEFLASH_GLUON=$g step profile-$g python -m benchmarks.profile_call --pattern "local(3)" --seq-len 16384 --head-dim 64
  SPARSEFLASH_GLUON=$g step overhead-$g python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 --head-dim 64 --top 25
done
pack
