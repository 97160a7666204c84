# Session 20, device call 8 (nvidia-h200, one GPU): the fused backward with the last
# tile's Q/dO slot released next to the dS barrier instead of after the scores' wait (one
# partition-wide barrier a tile fewer: 4 against 5 in its PTX). Its GPU tests, then
# s19_fused_ab.py (two kernels / fused with 2 and 3 stages, alternating) on this tree and
# on the tree before (carried: .carry/s20-before-arrive.tar), each in its own process.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider -x \
    tests/test_gpu.py -k "fused"
step ab-new python benchmarks/sessions/s19_fused_ab.py
old_tree .carry/s20-before-arrive.tar
old ab-old python benchmarks/sessions/s19_fused_ab.py
step ab-new-again python benchmarks/sessions/s19_fused_ab.py --quick
pack
