# Session 5, device call 2 (nvidia-h200-x4). Call 1's eight Pathfinder-32 variants all sat at
# loss ln 2; every Pathfinder run so far had head dim 32 (d=64 over 2 heads), a head dim the
# GPU tests did not cover, while ListOps and text (head dim 64) learn. So:
# GPU 0: tests/test_gpu.py with the new head-dim 32/16 cases and a whole Pathfinder model's
#   gradients through Triton vs the torch backend; then one training variant.
# GPUs 0-3: Pathfinder-32 with head dim 64 (1 head, or d=128 over 2) next to head dim 32
#   with Flax-scale token embeddings (embed_std=1), LRA's lr 1e-3 or the Nystromformer recipe.
source benchmarks/sessions/common.sh
LRA_LR=(--task pathfinder32 --set num_layers=2 --set lr=1e-3 --set schedule=cosine
        --set eval_interval=312 --set checkpoint_interval=312)
SIN=(--set positional=sincos2d)
AUG=(--set augment=dihedral)

END=$((START + BUDGET - 40))  # every run stops by then, leaving time to pack

run() {  # run GPU TAG ARGS...: train until END
    local gpu=$1 tag=$2; shift 2
    (export CUDA_VISIBLE_DEVICES=$gpu
     MIN=$(python -c "print(round(($END - $(date +%s)) / 60, 2))")
     step pf-$tag $LRA "$@" --tag $tag --max-minutes $MIN) &
}

# GPU 0: the tests first (in parallel with the data build), then one training run.
(export CUDA_VISIBLE_DEVICES=0
 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
 while [ ! -e $WORK/data-ready ]; do sleep 2; done
 run 0 h1-aug "${NYS[@]}" "${AUG[@]}" --set num_heads=1
 wait) &
pathfinder32_data
touch $WORK/data-ready
run 1 h1              "${NYS[@]}" --set num_heads=1
run 1 h1-sin-aug-lr3  "${LRA_LR[@]}" "${SIN[@]}" "${AUG[@]}" --set num_heads=1
run 2 emb1-aug        "${NYS[@]}" "${AUG[@]}" --set embed_std=1.0
run 2 emb1-sin-aug-lr3 "${LRA_LR[@]}" "${SIN[@]}" "${AUG[@]}" --set embed_std=1.0
run 3 h1-emb1-sin-aug-lr3 "${LRA_LR[@]}" "${SIN[@]}" "${AUG[@]}" --set embed_std=1.0 --set num_heads=1
run 3 d128-aug        "${NYS[@]}" "${AUG[@]}" --set d_model=128 --set ffn_dim=256
wait
EXTRA=ckpt pack
