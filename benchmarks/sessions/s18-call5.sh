# Session 18, device call 5 (nvidia-h200, one GPU): the README's table on this tree (launch
# plans, addresses to the C launcher, descriptors kept by address), sparseflash in a process
# of its own before the peers' (as s17-call9.sh); then the host timeline of this tree and
# benchmarks.overhead for local(3) at D=64.
source benchmarks/sessions/common.sh
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s18 call 5 (benchmarks/sessions/s18-call5.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s18 call 5 (benchmarks/sessions/s18-call5.sh): the peers in their own process"
done
step timeline python benchmarks/sessions/s18_host_timeline.py
step overhead python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 --head-dim 64 --top 25
pack
