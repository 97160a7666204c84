# Session 23, device call 1 (nvidia-h200, one GPU): the D=128 ping-pong forward with
# persistent programs. First its GPU tests (every ping-pong case: as the library runs it,
# with three programs for many items each, and a program an item), then the A/B of
# s23_persistent_ab.py (a program an item against persistent, alternating, bit-for-bit
# comparison of outputs).
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "pingpong"
step ab python benchmarks/sessions/s23_persistent_ab.py
pack
