# Session 11, device call 1 (nvidia-h200, one GPU): where the host time of a short
# fwd+bwd goes (s11_host_timeline.py), D=64 and 128 at N=16K, fixed tiles (host time does
# not depend on the tile), then the same at N=1K where every call is host-bound.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step timeline-d64 python benchmarks/sessions/s11_host_timeline.py --head-dim 64
step timeline-d128 python benchmarks/sessions/s11_host_timeline.py --head-dim 128 \
    --patterns "local(3)"
step timeline-n1k python benchmarks/sessions/s11_host_timeline.py --seq-len 1024 \
    --patterns dense "local(3)"
pack
