# Session 47, device call 5: the forwards' partial-block reads before the tile's waits
# (hopper.partial_reads). First the forward GPU tests with partial blocks, padding or
# empty rows (bf16: hopper's own, the ping-pong kernel with and without dropout, several
# program counts), then the A/B against the tree before (s47-old.tar, carried; commit
# 2f0c510's sparseflash) on causal at 1K, 4K and 16K (s47_early_mask_ab.py).
source benchmarks/sessions/common.sh
BUDGET=480
NOTE="s47 call 5 (benchmarks/sessions/s47-call5.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p /tmp/old-tree && tar -xf s47-old.tar -C /tmp/old-tree
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "(gluon_forward_against or pingpong_forward_against or d64_forward_choice or pingpong_forward_programs or pingpong_forward_with_dropout_against) and (causal or holes or pad or empty or per_head) and not dtype1"
tail -3 $LOGS/checks.log
step early-mask-ab python benchmarks/sessions/s47_early_mask_ab.py /tmp/old-tree --rounds 2
grep "best\|^B=" $LOGS/early-mask-ab.log
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s47c5.tar.gz" -C $WORK results logs
