# Session 23, device call 8 (nvidia-h100-x1): at D=64, the Gluon forward's own kernel
# against the persistent ping-pong kernel (s23_d64_pingpong_ab.py), on the H100 whose D=64
# causal fwd+bwd (1.76x Flex) is the one non-dense target left there.
source benchmarks/sessions/common.sh
step ab python benchmarks/sessions/s23_d64_pingpong_ab.py
pack
