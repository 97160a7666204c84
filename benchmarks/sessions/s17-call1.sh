# Session 17, device call 1 (nvidia-h200, one GPU): the fused five-product backward probe
# (dQ by TMA reductions in the dK/dV kernel) against sparseflash's two-kernel backward.
source benchmarks/sessions/common.sh
step fused-bwd python benchmarks/sessions/s17_fused_bwd.py
pack
