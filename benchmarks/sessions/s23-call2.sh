# Session 23, device call 2 (nvidia-h200, one GPU): the persistent ping-pong forward with
# its items longest first and dealt in alternating order (call 1's in-turn order was 39%
# slower on causal rows). Its GPU tests, the A/B of s23_persistent_ab.py on this tree,
# then the same script on the session-22 tree (7cc0514, carried as .carry/old-tree.tar:
# a program an item in the old launch order; its two variants are the same kernel).
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "pingpong"
step ab python benchmarks/sessions/s23_persistent_ab.py
old_tree .carry/old-tree.tar
old ab-old python benchmarks/sessions/s23_persistent_ab.py --rounds 1
pack
