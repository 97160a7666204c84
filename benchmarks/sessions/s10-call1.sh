# Session 10, device call 1 (nvidia-h200, one GPU): where the backward's time goes. Minimal
# dK/dV and dQ kernels (loop-index and table-read walks; dK/dV also on transposed scores)
# against sparseflash's own kernels on the same inputs, dense and local(3), D = 64 and
# 128; then the forward with K/V through tensor descriptors off and on, five layouts.
source benchmarks/sessions/common.sh
step bwd-probe python benchmarks/sessions/s10_bwd_probe.py --part backward
step tma-forward python benchmarks/sessions/s10_bwd_probe.py --part tma
pack
