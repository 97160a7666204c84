# Session 48, device call 4: the partial mask by one compare a score (hopper._partial_mask).
# First the forward GPU tests with partial blocks, padding or empty rows (now with
# anti-causal diagonals, one ragged), then the A/B against the tree before (s48-old.tar,
# carried; commit 514305c's sparseflash) on causal at 1K, 4K and 16K, anti-causal layouts
# and ragged ends (s48_mask_ab.py).
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s48 call 4 (benchmarks/sessions/s48-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p /tmp/old-tree && tar -xf s48-old.tar -C /tmp/old-tree
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "(gluon_forward_against or pingpong_forward_against or d64_forward_choice or pingpong_forward_programs or pingpong_forward_with_dropout_against) and (causal or holes or pad or empty or per_head) and not dtype1"
tail -3 $LOGS/checks.log
step mask-ab python benchmarks/sessions/s48_mask_ab.py /tmp/old-tree --rounds 2
grep "best\|^B=" $LOGS/mask-ab.log
grep "round" $LOGS/mask-ab.log | awk '{print $NF, $(NF-2)}' | sort | uniq -c
grep -h "exit" $LOGS/*.log
pack
