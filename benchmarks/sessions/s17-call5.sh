# Session 17, device call 5 (nvidia-h200, one GPU): settle the forward's default on short rows
# and at D=128 (NOTES v18's open question): the README's forward rows, sparseflash only,
# with SPARSEFLASH_GLUON=0 (Triton forward) and =1 (Gluon forward wherever it can run),
# alternating, two rounds, one process each.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for round in 1 2; do
  for g in 0 1; do
    SPARSEFLASH_GLUON=$g step fwd-gluon$g-r$round python -m benchmarks.attention \
        --seq-lens 16384 --head-dims 64 128 --dtypes bfloat16 --patterns "${PATTERNS[@]}" \
        --modes fwd --methods sparseflash --out $RES/fwd-gluon$g-r$round.json \
        --note "s17 call 5: forward A/B, SPARSEFLASH_GLUON=$g, round $round"
  done
done
pack
