# Session 21, device call 6 (nvidia-h200, one GPU): where the host time of a short D=64
# fwd+bwd goes on this tree (session 18's timeline probe), for the rows whose wall clock
# follows the host (butterfly: 0.755-0.782 ms against ~0.71 of kernels), and
# benchmarks.overhead for the same rows.
source benchmarks/sessions/common.sh
step timeline python benchmarks/sessions/s18_host_timeline.py --head-dims 64 \
    --patterns butterfly "local(3)" "local(1) | global(1) | random(2)"
for p in butterfly "local(3)"; do
  step overhead-$p python -m benchmarks.overhead --pattern "$p" --seq-len 16384 --head-dim 64
done
pack
