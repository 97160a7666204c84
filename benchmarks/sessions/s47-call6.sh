# Session 47, device call 6 (branch s47-first-partial): the forwards' K/V table reads
# before the waits (hopper.kv_offset) against main's kernels (s47-old.tar, carried),
# s47_kv_offset_ab.py. Outputs are compared with main's bit for bit by the A/B.
source benchmarks/sessions/common.sh
BUDGET=190
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p /tmp/old-tree && tar -xf s47-old.tar -C /tmp/old-tree
step kv-offset-ab python benchmarks/sessions/s47_kv_offset_ab.py /tmp/old-tree --rounds 2
cat $LOGS/kv-offset-ab.log | grep -v "^=="
tar -czf "$OUT/s47c6.tar.gz" -C $WORK logs
