# Session 48, device call 5: the Gluon backwards' partial mask by one compare an entry
# (hopper.partial_select, keys first). First the fused and dK/dV backward GPU tests (now
# with anti-causal diagonals), then the A/B against the tree before (s48-old.tar, carried;
# commit 514305c's sparseflash) on causal at 1K and 4K (s48_bwd_mask_ab.py).
source benchmarks/sessions/common.sh
BUDGET=540
NOTE="s48 call 5 (benchmarks/sessions/s48-call5.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p /tmp/old-tree && tar -xf s48-old.tar -C /tmp/old-tree
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "(fused_backward_against or fused_backward_with_dropout or fused_backward_filling or gluon_backward_against) and not dtype1"
tail -3 $LOGS/checks.log
step bwd-ab python benchmarks/sessions/s48_bwd_mask_ab.py /tmp/old-tree --rounds 2
grep "best\|^B=" $LOGS/bwd-ab.log
grep "round" $LOGS/bwd-ab.log | grep -c "bitwise equal"
grep "round" $LOGS/bwd-ab.log | grep -v "bitwise equal" | head -3
grep -h "exit" $LOGS/*.log
pack
