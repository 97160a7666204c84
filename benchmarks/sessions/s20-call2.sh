# Session 20, device call 2 (one H200): the ping-pong forward (hopper_pingpong) inside
# the library. Its GPU tests and the Gluon forward's, then s20_forward_ab.py (Triton /
# hopper's serial Gluon kernel / ping-pong, alternating) at D=128, N=16K and 4K.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "pingpong or gluon_forward or serial_gluon"
step ab-d128 python benchmarks/sessions/s20_forward_ab.py
step ab-d128-4k python benchmarks/sessions/s20_forward_ab.py --seq-len 4096
pack
