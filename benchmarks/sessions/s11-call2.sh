# Session 11, device call 2 (nvidia-h200, one GPU). The host path, v13: direct launches
# of compiled kernels past JITFunction.run (kernels/fastlaunch.py), delta computed inside
# the dQ kernel (one launch fewer), kernel_meta cached, no autocast context unless on.
# Fixed tiles (SPARSEFLASH_NO_AUTOTUNE=1) on both trees: this compares host paths and
# the dQ kernel, not tile choices.
# 1. tests/test_gpu.py on this tree (the new direct-launch test included).
# 2. Host time and do_bench wall time per call, old tree (fa5bac2) and new, alternating;
#    the new tree also with direct launches off, in the same process.
# 3. Per-kernel GPU times (s10_ab.py) old and new: the dQ kernel with delta inside it.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
NEW=$PWD
old_tree .carry/old-tree.tar
step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
for round in 1 2; do
  old host-old-$round python $NEW/benchmarks/sessions/s11_host_ab.py --label old
  step host-new-$round python benchmarks/sessions/s11_host_ab.py --label new --direct-switch
done
old ab-old python $NEW/benchmarks/sessions/s10_ab.py --label old --out $RES/ab-old.json
step ab-new python benchmarks/sessions/s10_ab.py --label new --out $RES/ab-new.json
pack
