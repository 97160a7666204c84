# Session 23, device call 10 (nvidia-h200, one GPU): the final tree's GPU tests the
# earlier calls did not run on it: the ping-pong forward at its defaults (its PTX changed
# with Q_BUFS: barrier order), and the tests call 5 deselected.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "pingpong or pathfinder or direct_launches or candidates or every_candidate or deterministic"
pack
