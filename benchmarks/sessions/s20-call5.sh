# Session 20, device call 5 (nvidia-h200, one GPU): the ping-pong forward in persistent
# form (one program an SM taking work items in turn). Its GPU tests, then
# s20_forward_ab.py --persistent (hopper's serial kernel / one program an item /
# persistent, alternating) at N=16K and 4K.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider -x \
    tests/test_gpu.py -k "pingpong"
step ab-16k python benchmarks/sessions/s20_forward_ab.py --persistent
step ab-4k python benchmarks/sessions/s20_forward_ab.py --persistent --seq-len 4096
pack
