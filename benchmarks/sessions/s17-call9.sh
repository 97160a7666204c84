# Session 17, device call 9 (nvidia-h200, one GPU): the README's table with sparseflash's rows
# measured in a process of their own, before the peers' process (call 7: after
# FlexAttention's torch.compile in the same process, sparseflash's host-bound sub-ms rows
# came out up to 2x slower, with either forward kernel; alone, three runs agreed).
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s17 call 9 (benchmarks/sessions/s17-call9.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s17 call 9 (benchmarks/sessions/s17-call9.sh): the peers in their own process"
done
pack
