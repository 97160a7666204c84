# Session 13, device call 6 (nvidia-h200, one GPU): the README's Scale paragraph on the
# current kernels (its figures were session 3's): N = 1,048,576 tokens, B=1, H=16, D=64,
# `local(3)` and `butterfly`, fwd and fwd+bwd, checked on sampled rows.
source benchmarks/sessions/common.sh
step scale-1m python -m benchmarks.attention --seq-lens 1048576 --tokens 1048576 --heads 16 \
    --head-dims 64 --patterns "local(3)" butterfly --methods sparseflash \
    --out $RES/attention-1m.json \
    --note "s13 call 6 (benchmarks/sessions/s13-call6.sh), alone on the GPU"
pack
