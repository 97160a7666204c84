# Session 30, device call 4 (an H100): call 3's float32 sweep ran out of time after the
# forward's tiles; here the dK/dV and dQ tiles.
source benchmarks/sessions/common.sh
step sweep-fp32-bwd python benchmarks/sessions/s30_tile_sweep.py --workers 14 --float32 --kinds dkdv dq
pack
