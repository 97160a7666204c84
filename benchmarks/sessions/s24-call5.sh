# Session 24, device call 5 (nvidia-h200, one GPU): the same short D=64 fwd+bwd rows took
# 0.87 ms of wall time in one process of call 3 and 0.60 in one of call 4 (two machines,
# kernels 0.59 ms in both). Is it where the process's threads run? The machine's CPU and
# GPU topology, then the rows in six processes alternating: three left to the scheduler,
# three pinned (taskset) to the CPUs of the GPU's NUMA node.
source benchmarks/sessions/common.sh
step topology bash -c "lscpu; nvidia-smi topo -m; numactl -H 2>/dev/null; cat /sys/bus/pci/devices/*/numa_node 2>/dev/null | sort | uniq -c; nproc"
GPU_CPUS=$(nvidia-smi topo -m 2>/dev/null | awk '/^GPU0/ {for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+-[0-9]+(,[0-9]+-[0-9]+)*$/) {print $i; exit}}')
echo "GPU0 CPU affinity: ${GPU_CPUS:-unknown}" | tee $LOGS/affinity.log
ROWS=(--seq-lens 16384 --head-dims 64 --dtypes bfloat16 --modes fwd fwd+bwd --methods sparseflash
      --patterns "local(3)" "local(1) | global(1) | random(2)")
for i in 1 2 3; do
  step free-$i python -m benchmarks.attention "${ROWS[@]}" --out $RES/free-$i.json \
      --note "s24 call 5: process $i left to the scheduler"
  step pinned-$i taskset -c ${GPU_CPUS:-0-7} python -m benchmarks.attention "${ROWS[@]}" \
      --out $RES/pinned-$i.json --note "s24 call 5: process $i pinned to CPUs ${GPU_CPUS:-0-7}"
done
pack
