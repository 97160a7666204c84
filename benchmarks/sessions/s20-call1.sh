# Session 20, device call 1 (one H200): the warp-specialised forward probe at D=128 and
# D=64 (dense, N=16K, 16 heads, bf16): serial / overlap / split / ping-pong variants
# against the library's forward and cuDNN, two rounds.
source benchmarks/sessions/common.sh
step probe-d128 python benchmarks/sessions/s20_ws_fwd.py
step probe-d64 python benchmarks/sessions/s20_ws_fwd.py --head-dim 64
pack
