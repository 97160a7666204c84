# Session 8, device call 3 (nvidia-h200, one GPU). The atomic-dQ backward is reverted (calls
# 1-2: slower everywhere). This tree's only GPU-side change is the launch path: autotuned
# kernels remember their pick per key and later launches skip Triton's autotuner.
# 1. tests/test_gpu.py on this tree.
# 2. Host time of the launchers with and without the autotuner on every launch, in one
#    process, alternating (s8_launch_path.py); benchmarks.overhead for the whole call.
# 3. The README's speed table (sparseflash, Flex, cuDNN; D=64 and 128), then a second
#    sparseflash-only round for the run-to-run spread.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
for pattern in "local(3)" butterfly; do
  step launch-path-$pattern python benchmarks/sessions/s8_launch_path.py --pattern "$pattern"
done
step overhead python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 --top 15
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for round in 1 2; do
  for d in 64 128; do
    methods=(--methods sparseflash)
    [ $round = 1 ] && methods=(--methods sparseflash flex sdpa-cudnn)
    step table-d$d-round$round python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
        --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd "${methods[@]}" \
        --out $RES/table-d$d-round$round.json --note "s8 call 3, round $round, alone on the GPU"
  done
done
pack
