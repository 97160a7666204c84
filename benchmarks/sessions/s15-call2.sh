# Session 15, device call 2 (one GPU): the Gluon dK/dV probe (asynchronous wgmma: S^T and
# dP^T issued together, the softmax beside dP^T, dV/dK in flight into the next tile), then
# the forward probe again with the table walk on the serial variant.
source benchmarks/sessions/common.sh
step gluon-bwd-probe python benchmarks/sessions/s15_gluon_bwd_probe.py
step gluon-probe python benchmarks/sessions/s15_gluon_probe.py
pack
