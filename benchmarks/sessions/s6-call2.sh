# CORRECTION (found after the call): every "old" run here imported the NEW sparseflash.
# `python -m` puts the working directory ahead of PYTHONPATH on sys.path, so
# `PYTHONPATH=$OLD:$PWD` in the repository root did not select the old package. The "old"
# rows are repeats of the new tree, and the resumed Pathfinder runs trained on the new
# kernels. Call 4 (s6-call4.sh) redoes the old-vs-new A/B from the old tree's own directory.
# Session 6, device call 2 (nvidia-h200-x4): the v8 kernel changes against the tree before
# them (cc25925, .carry/old-sf.tar: its sparseflash package only), in one call.
# (Ran on commit fb265c5; the SPARSEFLASH_DKDV_KEY_MAJOR and SPARSEFLASH_WARP_SPECIALIZE
# knobs were removed after it, when this call measured them: benchmarks/NOTES.md, v8.)
#   new: K/V through in-kernel tensor descriptors (TMA), dK/dV on transposed scores for
#        16-bit inputs, head-dim masks folded when D fills the tile, the forward's row max
#        over raw scores (one FMA per score), dot-accumulate, two more forward tiles.
#   Variants of the new tree by environment: SPARSEFLASH_TMA=0 (pointer loads),
#   SPARSEFLASH_DKDV_KEY_MAJOR=0 (untransposed dK/dV), SPARSEFLASH_WARP_SPECIALIZE=1
#   (warp-specialised forward configs join the autotuning).
# GPU 0: D=64, GPU 1: D=128 (bf16, B*N = 16K tokens, H=16, N=16K), each variant a process.
# GPUs 2, 3: call 1's two best Pathfinder-32 runs resume (d=128 at 70.0% val, step 20.6K
# of 46.8K; lr 3e-4 at 67.1%, step 30.3K of 62.4K). The GPU tests move to call 3.
# Needs: carry .carry (old-sf.tar, the two checkpoints).
source benchmarks/sessions/common.sh
OLD=/tmp/old
mkdir -p $OLD && tar -xf .carry/old-sf.tar -C $OLD
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")

speed() {  # speed D: every variant at head dim D, one process each, alternating old/new
    local d=$1
    local args=(--seq-lens 16384 --head-dims $d --dtypes bfloat16 --patterns "${PATTERNS[@]}"
                --modes fwd fwd+bwd)
    step ab-d$d-new python -m benchmarks.attention "${args[@]}" \
        --methods sparseflash flex sdpa-cudnn --out $RES/ab-d$d-new.json --note "s6 A/B: new"
    PYTHONPATH=$OLD:$PWD step ab-d$d-old python -m benchmarks.attention "${args[@]}" \
        --methods sparseflash --out $RES/ab-d$d-old.json --note "s6 A/B: old (cc25925)"
    SPARSEFLASH_TMA=0 step ab-d$d-notma python -m benchmarks.attention "${args[@]}" \
        --methods sparseflash --out $RES/ab-d$d-notma.json --note "s6 A/B: new, TMA off"
    SPARSEFLASH_DKDV_KEY_MAJOR=0 step ab-d$d-km0 python -m benchmarks.attention "${args[@]}" \
        --modes fwd+bwd --methods sparseflash --out $RES/ab-d$d-km0.json \
        --note "s6 A/B: new, dK/dV untransposed"
    SPARSEFLASH_WARP_SPECIALIZE=1 step ab-d$d-ws python -m benchmarks.attention "${args[@]}" \
        --modes fwd --methods sparseflash --out $RES/ab-d$d-ws.json \
        --note "s6 A/B: new + warp-specialised configs"
    step ab-d$d-new2 python -m benchmarks.attention "${args[@]}" \
        --methods sparseflash --out $RES/ab-d$d-new2.json --note "s6 A/B: new, second round"
    PYTHONPATH=$OLD:$PWD step ab-d$d-old2 python -m benchmarks.attention "${args[@]}" \
        --methods sparseflash --out $RES/ab-d$d-old2.json --note "s6 A/B: old, second round"
}
(export CUDA_VISIBLE_DEVICES=0; speed 64) &
(export CUDA_VISIBLE_DEVICES=1; speed 128) &
NYS+=(--set embed_std=1.0 --set augment=dihedral)
END=$((START + BUDGET - 40))
run() {  # run GPU TAG ARGS...: resume TAG from .carry, train until END, on the kernels
    local gpu=$1 tag=$2; shift 2  # it started with (the old tree: the new ones are on trial)
    (export CUDA_VISIBLE_DEVICES=$gpu PYTHONPATH=$OLD:$PWD
     MIN=$(python -c "print(round(($END - $(date +%s)) / 60, 2))")
     step pf-$tag $LRA "$@" --tag $tag --resume .carry/lra-pathfinder32-full-$tag-NVIDIA-H200.pt \
         --max-minutes $MIN) &
}
pathfinder32_data
run 2 emb1-aug-d128   "${NYS[@]}" --set d_model=128 --set num_heads=4 --set ffn_dim=256 --set lr=2e-4 --set steps=46800
run 3 emb1-aug-lr3e-4 "${NYS[@]}" --set lr=3e-4
wait
EXTRA=ckpt pack
