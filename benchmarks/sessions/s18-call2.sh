# Session 18, device call 2 (one GPU): the host-path changes (tensors passed to the C
# launcher as addresses, Gluon descriptors kept by address, the front end's layout cache).
# 1. Host time per fwd+bwd, the session-17 tree against this one, alternating processes.
# 2. The new tree's host timeline. 3. The whole GPU test file.
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-s17.tar
for r in 1 2; do
  SPARSEFLASH_NO_AUTOTUNE=1 old host-old-$r python $NEW/benchmarks/sessions/s18_host_timeline.py --host-only
  SPARSEFLASH_NO_AUTOTUNE=1 step host-new-$r python benchmarks/sessions/s18_host_timeline.py --host-only
done
SPARSEFLASH_NO_AUTOTUNE=1 step timeline python benchmarks/sessions/s18_host_timeline.py
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
pack
