# Session 9, device call 2 (nvidia-h200, one GPU). Call 1 found a minimal forward (Q, K, V
# through tensor descriptors, nothing else) 14% faster than sparseflash's at D=64 dense,
# and every warp-specialised variant failing with an illegal memory access. This call
# takes the gap apart: the minimal forward with one of sparseflash's features at a time
# (pointer loads, table-read key blocks, the -inf guard), D=64 and 128, dense and
# local(3), beside sparseflash (TMA off and on) and cuDNN; then the warp-specialised
# probe alone in its own process (an illegal access loses the CUDA context).
source benchmarks/sessions/common.sh
step features python benchmarks/sessions/s9_ws_probe.py --seq-len 16384
CUDA_LAUNCH_BLOCKING=1 step ws python benchmarks/sessions/s9_ws_probe.py --seq-len 16384 --ws
pack
