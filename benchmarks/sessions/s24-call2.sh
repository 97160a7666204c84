# Session 24, device call 2 (nvidia-h200, one GPU): which of the new depths costs causal
# rows 2-3% (s24_split_ring_ab.py --which-costs-causal, three rounds), then the README's
# D=128 rows on the new default (K2 V3 Q2), sparseflash and the peers in separate
# processes.
source benchmarks/sessions/common.sh
step causal-ab python benchmarks/sessions/s24_split_ring_ab.py --rounds 3 --which-costs-causal
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s24 call 2 (benchmarks/sessions/s24-call2.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s24 call 2 (benchmarks/sessions/s24-call2.sh): the peers in their own process"
done
pack
