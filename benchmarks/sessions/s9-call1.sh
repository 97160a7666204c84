# Session 9, device call 1 (nvidia-h200, one GPU): the prize of Triton's warp specialisation
# on Hopper for the forward, before restructuring the kernel for it (s9_ws_probe.py: a
# minimal forward, plain and warp-specialised, dense and local(3), D=64 and 128, against
# sparseflash's forward and cuDNN, outputs checked first).
source benchmarks/sessions/common.sh
step ws-probe python benchmarks/sessions/s9_ws_probe.py --seq-len 16384
pack
