# Session 15, device call 4 (one GPU): wall and kernel time of the library's Gluon forward
# against the probe's kernel and the Triton forward (dense, D = 64 and 128).
source benchmarks/sessions/common.sh
step gluon-where python benchmarks/sessions/s15_gluon_where.py
pack
