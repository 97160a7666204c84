# Session 18, device call 3 (one GPU): launch plans (fastlaunch.Launch, launch._PLANS).
# 1. The whole GPU test file. 2. Host time per fwd+bwd (median of 40 calls, 3 rounds),
# the session-17 tree against this one, alternating processes. 3. This tree's timeline.
source benchmarks/sessions/common.sh
NEW=$PWD
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
old_tree .carry/old-s17.tar
for r in 1 2; do
  SPARSEFLASH_NO_AUTOTUNE=1 old host-old-$r python $NEW/benchmarks/sessions/s18_host_timeline.py --host-only
  SPARSEFLASH_NO_AUTOTUNE=1 step host-new-$r python benchmarks/sessions/s18_host_timeline.py --host-only
done
SPARSEFLASH_NO_AUTOTUNE=1 step timeline python benchmarks/sessions/s18_host_timeline.py
pack
