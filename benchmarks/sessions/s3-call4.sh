# Session 3, device call 4 (nvidia-h200, one GPU): host time per call and its cProfile,
# for the short sparse calls whose fwd+bwd do_bench time exceeded their kernel time.
source benchmarks/sessions/common.sh
for case in "local(3) 16384" "butterfly 1024"; do
  step overhead python -m benchmarks.overhead --pattern "${case% *}" --seq-len "${case##* }"
done
pack
