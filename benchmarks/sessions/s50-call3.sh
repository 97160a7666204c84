# Session 50, device call 3: where the host's time goes in short eager calls (call 2's
# E.6 rows at N <= 1024 took 0.6-0.8 ms a fwd+bwd against SDPA flash's 0.2-0.6): the
# host time per call and a cProfile of the fwd+bwd loop (benchmarks.overhead), for the
# E.6 setting (fp16, dropout 0.1, key padding) at N = 512, and plain dense and local(3)
# calls at 1K and 16K.
source benchmarks/sessions/common.sh
BUDGET=300
NOTE="s50 call 3 (benchmarks/sessions/s50-call3.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step e6-512 python -m benchmarks.overhead --pattern dense --seq-len 512 --tokens 8192 \
    --heads 8 --dtype float16 --max-pad 20 --dropout 0.1 --iters 60 --top 45
step dense-1k python -m benchmarks.overhead --pattern dense --seq-len 1024 --iters 60 --top 45
step local3-16k python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 --iters 60 --top 45
grep -h "host time\|launchers alone\|does nothing" $LOGS/*.log
grep -h "exit" $LOGS/*.log
pack
