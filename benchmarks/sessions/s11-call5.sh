# Session 11, device call 5 (nvidia-h200, one GPU): where the host time of a short
# fwd+bwd goes on the final v13 tree (direct launches: no JITFunction.run stamps after the
# warm-up), to compare with call 1's timeline of the tree before.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step timeline-d64 python benchmarks/sessions/s11_host_timeline.py --head-dim 64
pack
