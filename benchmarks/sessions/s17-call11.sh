# Session 17, device call 11 (nvidia-h200, one GPU): the README's Scale paragraph and the
# N = 64K rows with session 17's defaults (the Gluon forward on local and butterfly rows,
# the Gluon dK/dV at D=128).
# 1. N = 1,048,576 tokens, B=1, H=16, `local(3)` and `butterfly`, D=64 and 128 (checked on
#    sampled rows against the torch backend).
# 2. N = 65,536: sparseflash, then the peers, each in its own process, both head dims.
source benchmarks/sessions/common.sh
for d in 64 128; do
  step scale-1m-d$d python -m benchmarks.attention --seq-lens 1048576 --tokens 1048576 \
      --heads 16 --head-dims $d --patterns "local(3)" butterfly --methods sparseflash \
      --out $RES/attention-1m-d$d.json \
      --note "s17 call 11 (benchmarks/sessions/s17-call11.sh), alone on the GPU"
done
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-n64k-d$d python -m benchmarks.attention --seq-lens 65536 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-n64k-d$d.json \
      --note "s17 call 11 (benchmarks/sessions/s17-call11.sh): sparseflash in its own process"
  step peers-n64k-d$d python -m benchmarks.attention --seq-lens 65536 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-n64k-d$d.json \
      --note "s17 call 11 (benchmarks/sessions/s17-call11.sh): the peers in their own process"
done
pack
