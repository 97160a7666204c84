# Session 8, device call 7 (nvidia-h200, one GPU): the backward's host time under autograd
# (s8_backward_host.py), for local(3) and butterfly at N=16K, D=64.
source benchmarks/sessions/common.sh
for pattern in "local(3)" butterfly; do
  step "backward-host-$pattern" python benchmarks/sessions/s8_backward_host.py --pattern "$pattern"
done
pack
