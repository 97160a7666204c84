# Session 24, device call 1 (nvidia-h200, one GPU): the ping-pong forward with separate K
# and V rings (K released after its scores) and two Q buffers per warp group. Its GPU
# tests (every ping-pong case, the default depths and two others), then
# s24_split_ring_ab.py (three depths in one process) alternating with the session-23
# tree's s23_persistent_ab.py (43c3a9d, .carry/old-tree.tar), two processes each.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "pingpong"
old_tree .carry/old-tree.tar
for i in 1 2; do
  step ab-new-$i python benchmarks/sessions/s24_split_ring_ab.py --rounds 1
  old ab-old-$i python benchmarks/sessions/s23_persistent_ab.py --rounds 1 --label "session 23"
done
pack
