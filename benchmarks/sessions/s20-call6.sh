# Session 20, device call 6 (nvidia-h200, one GPU): the persistent ping-pong forward with
# work items ordered as the 2-D grid ran them (a head's query tiles in a row: call 5's
# tile-major order put 16 heads' K/V in L2 at once). Its GPU tests, then
# s20_forward_ab.py --persistent at N=16K, and the call-2 tree's ping-pong kernel
# (carried: .carry/s20-call2.tar) in its own process for reference.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider -x \
    tests/test_gpu.py -k "pingpong"
step ab-16k python benchmarks/sessions/s20_forward_ab.py --persistent
old_tree .carry/s20-call2.tar
old ab-call2-tree python benchmarks/sessions/s20_forward_ab.py
pack
