# Session 19, device call 10 (nvidia-h200, one GPU; carry .carry/s19-before-smem-lse.tar):
# the fused backward with LSE and delta copied by the loader warp into shared memory.
# Its GPU tests, then s19_fused_ab.py --quick (two kernels against fused) in the tree
# before (the tarball) and this one, alternating, two rounds.
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "fused"
old_tree .carry/s19-before-smem-lse.tar
for r in 1 2; do
  old ab-before-$r python benchmarks/sessions/s19_fused_ab.py --quick
  step ab-smem-lse-$r python benchmarks/sessions/s19_fused_ab.py --quick
done
pack
