# Session 25, device call 2 (nvidia-h200; a fresh machine, not call 1's): reduce-overhead with static inputs,
# and whole BlockSparseAttention layers, eager against reduce-overhead (s25_compiled_step.py).
source benchmarks/sessions/common.sh
step compiled-step python benchmarks/sessions/s25_compiled_step.py --head-dims 64 128 \
    --patterns "local(3)" "local(1)" --layer
pack
