# Session 29, device call 8 (an H100): the barrier's cost on the Triton backward with
# dropout, this tree against a copy with the barrier lines removed, alternating.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
rm -rf /tmp/nobarrier && mkdir -p /tmp/nobarrier && cp -r sparseflash benchmarks /tmp/nobarrier/
sed -i '/tl.debug_barrier()/d' /tmp/nobarrier/sparseflash/kernels/backward.py
grep -c debug_barrier sparseflash/kernels/backward.py /tmp/nobarrier/sparseflash/kernels/backward.py
S=benchmarks/sessions/s29_barrier_cost.py
step cost-with python $S with-barrier
(cd /tmp/nobarrier && PYTHONPATH=/tmp/nobarrier step cost-without python $S without-barrier)
step cost-with2 python $S with-barrier
pack
