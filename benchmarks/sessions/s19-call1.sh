# Session 19, device call 1 (nvidia-h200, one GPU): the warp-specialised five-product
# backward probe against sparseflash's backward and session 17's serial fused kernel,
# dense and local(3), D = 64 and 128.
source benchmarks/sessions/common.sh
step ws-bwd python benchmarks/sessions/s19_ws_bwd.py --all-patterns
pack
