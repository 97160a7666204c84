# Session 11, device call 6 (nvidia-h200, one GPU): why `butterfly` at N=4K, D=64 measured
# 181 TFLOP/s fwd+bwd in call 4 (0.997 ms) against 274 (0.657 ms) in session 10's call 6,
# while D=128 and the other layouts held. Per-kernel GPU time (profile_call), host time
# (overhead) and the benchmark row, new tree and old (fa5bac2), autotuned.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
for tree in new old; do
  run=step; [ $tree = old ] && run=old
  $run bench-$tree python -m benchmarks.attention --seq-lens 4096 --head-dims 64 \
      --patterns "local(3)" butterfly --modes fwd+bwd --methods sparseflash \
      --out $RES/bench-$tree.json --note "s11 call 6, $tree tree"
  $run profile-bfly-$tree python -m benchmarks.profile_call --pattern butterfly --seq-len 4096
  $run profile-local-$tree python -m benchmarks.profile_call --pattern "local(3)" --seq-len 4096
  $run overhead-bfly-$tree python -m benchmarks.overhead --pattern butterfly --seq-len 4096 --top 12
done
pack
