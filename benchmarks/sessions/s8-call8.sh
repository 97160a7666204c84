# Session 8, device call 8 (nvidia-h200, one GPU): s8_backward_host.py again, now with the
# decomposition of call 7's unexplained ~0.4 ms: sparseflash's autograd Function signature
# with no kernels at all, and with the launchers but none of attention()'s front end.
source benchmarks/sessions/common.sh
for pattern in "local(3)" butterfly; do
  step "backward-host-$pattern" python benchmarks/sessions/s8_backward_host.py --pattern "$pattern"
done
pack
