# Session 8, device call 9 (nvidia-h200, one GPU): s8_backward_host.py with the forward
# and backward launchers inside autograd separately, and the backward launcher run from a
# plain second Python thread (is any other thread slow, or autograd's?).
source benchmarks/sessions/common.sh
for pattern in "local(3)" butterfly; do
  step "backward-host-$pattern" python benchmarks/sessions/s8_backward_host.py --pattern "$pattern"
done
pack
