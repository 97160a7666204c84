# Session 24, device call 8 (nvidia-h100-x1; meant for call 7's machine, it came up on a
# fresh one; call 7's short D=64
# fwd+bwd rows took 1.06-1.20 ms of wall time against 0.62-0.69 of kernels): the host
# timeline of a short fwd+bwd (s24_backward_timeline.py) in three processes at D=64 and
# one at D=128, with benchmarks.overhead beside it.
source benchmarks/sessions/common.sh
for i in 1 2 3; do
  step timeline-d64-$i python benchmarks/sessions/s24_backward_timeline.py --head-dim 64
done
step timeline-d128 python benchmarks/sessions/s24_backward_timeline.py --head-dim 128
step overhead-d64 python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 \
    --head-dim 64 --iters 40 --top 25
pack
