# Session 17, device call 2 (nvidia-h200, one GPU): where the fused backward's time goes:
# dQ in full, its product without the TMA reduction, no dQ (dense, D=64 and 128).
source benchmarks/sessions/common.sh
step fused-bwd-ablation python benchmarks/sessions/s17_fused_bwd.py
pack
