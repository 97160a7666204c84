# Session 50, device call 7: the Philox draws' share of dropout's cost in the Gluon
# kernels (s50_philox_rounds_ab.py: this tree against copies with 5 and 0 rounds, carried
# as s50-rounds5.tar and s50-rounds0.tar).
source benchmarks/sessions/common.sh
BUDGET=540
NOTE="s50 call 7 (benchmarks/sessions/s50-call7.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for r in 5 0; do mkdir -p /tmp/rounds$r && tar -xf s50-rounds$r.tar -C /tmp/rounds$r; done
grep -h "PHILOX_ROUNDS = " /tmp/rounds5/sparseflash/kernels/hopper_dropout.py /tmp/rounds0/sparseflash/kernels/hopper_dropout.py
step rounds-ab python benchmarks/sessions/s50_philox_rounds_ab.py /tmp/rounds5 /tmp/rounds0 --rounds 2
grep "best\|^B=" $LOGS/rounds-ab.log
grep -h "exit" $LOGS/rounds-ab.log
pack
