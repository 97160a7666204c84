# Session 30, device call 1 (an H100): every candidate tile of the Triton forward, dK/dV
# and dQ kernels on awkward cases with and without dropout, against float64 and across
# two runs; then the dK/dV tiles again without the barrier after the keep mask.
source benchmarks/sessions/common.sh
step sweep python benchmarks/sessions/s30_tile_sweep.py --workers 14
step sweep-no-barrier python benchmarks/sessions/s30_tile_sweep.py --workers 14 --kinds dkdv --no-barrier
pack
