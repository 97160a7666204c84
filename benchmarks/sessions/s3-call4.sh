# Session 3, device call 4 (nvidia-h200, one GPU): host time per call and its cProfile,
# for the short sparse calls whose fwd+bwd do_bench time exceeded their kernel time.
# First run: CASES=("local(3) 16384" "butterfly 1024"); the second (launchers alone
# added to benchmarks.overhead) ran the default case only.
source benchmarks/sessions/common.sh
for case in "${CASES[@]:-local(3) 16384}" ; do
  step overhead python -m benchmarks.overhead --pattern "${case% *}" --seq-len "${case##* }"
done
pack
