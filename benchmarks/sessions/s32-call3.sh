# Session 32, device call 3: at D=64, the Gluon forward's own kernel against the persistent
# ping-pong kernel again (s23_d64_pingpong_ab.py; session 23 measured it before session 24
# gave the ping-pong kernel its K and V rings and second Q buffers): is causal, the D=64
# fwd+bwd row furthest from 1.8x Flex, worth a per-layout choice now?
source benchmarks/sessions/common.sh
BUDGET=300
step d64-pingpong python benchmarks/sessions/s23_d64_pingpong_ab.py --rounds 2
cat $LOGS/d64-pingpong.log
pack
