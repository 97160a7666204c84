# Session 49, device call 2: P carried in float32 through the forwards' full-tile loop
# with partial blocks. First the forward GPU tests with partial blocks, padding or empty
# rows, then the A/B against the tree before (s49-old.tar, carried; commit 7866348's
# sparseflash; s49_pcarry_ab.py), then the D=64 causal backward against its ceilings at
# 64K (s49_bwd_ceiling.py).
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s49 call 2 (benchmarks/sessions/s49-call2.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p /tmp/old-tree && tar -xf s49-old.tar -C /tmp/old-tree
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "(gluon_forward_against or pingpong_forward_against or d64_forward_choice or pingpong_forward_programs or pingpong_forward_with_dropout_against) and (causal or holes or pad or empty or per_head) and not dtype1"
tail -3 $LOGS/checks.log
step pcarry-ab python benchmarks/sessions/s49_pcarry_ab.py /tmp/old-tree --rounds 2
grep "best\|^B=" $LOGS/pcarry-ab.log
grep "round" $LOGS/pcarry-ab.log | awk '{print $NF, $(NF-2)}' | sort | uniq -c
step bwd-ceiling python benchmarks/sessions/s49_bwd_ceiling.py
grep "round" $LOGS/bwd-ceiling.log
grep -h "exit" $LOGS/*.log
pack
