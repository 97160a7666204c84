# CORRECTION (found after the call): every "old" run here imported the NEW sparseflash.
# `python -m` puts the working directory ahead of PYTHONPATH on sys.path, so
# `PYTHONPATH=$OLD:$PWD` in the repository root did not select the old package. The "old"
# rows are repeats of the new tree, and the resumed Pathfinder runs trained on the new
# kernels. Call 4 (s6-call4.sh) redoes the old-vs-new A/B from the old tree's own directory.
# Session 6, device call 3 (nvidia-h200, one GPU). Call 2's A/B kept three of the v8
# changes (head-dim masks folded, row max over raw scores, dot-accumulate) and turned the
# other two off (TMA: opt-in now; dK/dV on transposed scores: removed). Here:
# 1. the d=128 Pathfinder-32 run finishes its last ~2.8K steps and its test evaluation (meant
#    to run on the old tree; in fact on the final one, see the correction above), while tests/test_gpu.py checks the final
#    kernels (float64 comparisons, dropout, determinism, whole-model gradients);
# 2. alone on the GPU, the final tree against the old one (two rounds each, D=64 and 128),
#    then the paper's E.6 setup (dropout, padding) new vs old, then memcheck and racecheck.
# Needs: carry .carry (old-sf.tar, the d=128 checkpoint).
source benchmarks/sessions/common.sh
OLD=/tmp/old
mkdir -p $OLD && tar -xf .carry/old-sf.tar -C $OLD
NYS+=(--set embed_std=1.0 --set augment=dihedral)
(SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider \
     -o faulthandler_timeout=200 --durations=10 tests/test_gpu.py) &
(pathfinder32_data
 PYTHONPATH=$OLD:$PWD step pf-emb1-aug-d128 $LRA "${NYS[@]}" --set d_model=128 --set num_heads=4 \
     --set ffn_dim=256 --set lr=2e-4 --set steps=46800 --tag emb1-aug-d128 \
     --resume .carry/lra-pathfinder32-full-emb1-aug-d128-NVIDIA-H200.pt) &
wait
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for round in 1 2; do
  for d in 64 128; do
    args=(--seq-lens 16384 --head-dims $d --dtypes bfloat16 --patterns "${PATTERNS[@]}"
          --modes fwd fwd+bwd)
    methods=(--methods sparseflash)
    [ $round = 1 ] && methods=(--methods sparseflash flex sdpa-cudnn)
    step final-d$d-new$round python -m benchmarks.attention "${args[@]}" "${methods[@]}" \
        --out $RES/final-d$d-new$round.json --note "s6 final v8, round $round, alone on the GPU"
    PYTHONPATH=$OLD:$PWD step final-d$d-old$round python -m benchmarks.attention "${args[@]}" \
        --methods sparseflash --out $RES/final-d$d-old$round.json \
        --note "s6 old (cc25925), round $round, alone on the GPU"
  done
done
E6=(--seq-lens 4096 8192 --methods sparseflash)
step e6-new python -m benchmarks.paper_e6 "${E6[@]}" sdpa-cudnn --out $RES/e6-new.json
PYTHONPATH=$OLD:$PWD step e6-old python -m benchmarks.paper_e6 "${E6[@]}" --out $RES/e6-old.json
SPARSEFLASH_NO_AUTOTUNE=1 step memcheck compute-sanitizer --tool memcheck python -m benchmarks.sanitize
SPARSEFLASH_NO_AUTOTUNE=1 step racecheck compute-sanitizer --tool racecheck python -m benchmarks.sanitize
EXTRA=ckpt pack
