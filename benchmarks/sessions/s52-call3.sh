# Session 52, device call 3: the expectations-first copies (s52_expect_ab.py, against the
# tree of call 2 carried as .carry/s52-old2.tar), then the forward GPU tests of both Gluon
# forwards and the per-head GQA case whose Triton dK/dV kernel failed to compile in call 2.
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s52 call 3 (benchmarks/sessions/s52-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
old_tree .carry/s52-old2.tar
step expect-ab python benchmarks/sessions/s52_expect_ab.py $OLD --rounds 2
cat $LOGS/expect-ab.log
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "(gluon_forward_against and (D64 or per_head)) or pingpong_forward_against or own_forward_filling or d64_forward_choice"
tail -5 $LOGS/checks.log
pack
