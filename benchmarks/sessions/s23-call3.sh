# Session 23, device call 3 (nvidia-h200, one GPU): the persistent ping-pong forward with
# items drawn from a counter in the old launch order (each group's entries longest first).
# Its GPU tests (every ping-pong case, with one program for all items and with three),
# then s23_persistent_ab.py alternating between this tree and the session-22 tree
# (7cc0514, .carry/old-tree.tar), two processes each.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "pingpong"
old_tree .carry/old-tree.tar
for i in 1 2; do
  step ab-new-$i python benchmarks/sessions/s23_persistent_ab.py --rounds 1 --label persistent
  old ab-old-$i python benchmarks/sessions/s23_persistent_ab.py --rounds 1 --label "session 22"
done
pack
