# Session 16, device call 5 (nvidia-h200, one GPU): where a short forward's host time goes,
# Gluon (direct and plain launches) against Triton.
source benchmarks/sessions/common.sh
step host python benchmarks/sessions/s16_host.py
pack
