# Session 15, device call 1 (one GPU): the Gluon forward probe (FlashAttention-3's
# intra-warpgroup overlap, hand-pipelined TMA) against sparseflash's forward and cuDNN.
source benchmarks/sessions/common.sh
step gluon-probe python benchmarks/sessions/s15_gluon_probe.py
pack
