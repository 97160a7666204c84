# Session 19, device call 4 (nvidia-h200, one GPU): the fused backward with its table reads
# ahead of the slot waits and the coordinates derived again after the loop; 2 against 3
# Q/dO stages and the two-kernel backward, alternating (s19_fused_ab.py); its GPU tests.
source benchmarks/sessions/common.sh
step ab python benchmarks/sessions/s19_fused_ab.py
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused"
pack
