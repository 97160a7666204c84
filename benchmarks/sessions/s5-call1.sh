# Session 5, device call 1 (nvidia-h200-x4): why does a pixel Transformer not learn
# Pathfinder-32? Eight variants of the Nystromformer recipe that memorised in session 4
# (2 layers, d=64, lr 1e-4, batch 256, linear decay over 62.4K steps), two per GPU, each for
# the time this call has (checkpoints packed, so the promising ones resume in call 2):
#   aug      dihedral augmentation (learned 2-D positions)     - does memorising stop?
#   sin      fixed 2-D sinusoidal positions                     - does a notion of offset help?
#   sin-aug  both; also dense, CLS pooling, no dropout, LRA's lr 1e-3 (2 and 4 layers)
source benchmarks/sessions/common.sh
LRA_LR=(--task pathfinder32 --set lr=1e-3 --set schedule=cosine --set eval_interval=312
        --set checkpoint_interval=312)
SIN=(--set positional=sincos2d)
AUG=(--set augment=dihedral)

# One data build, shared by the eight runs (the cache is read-only once written).
pathfinder32_data
MIN=$(python -c "print(round(($(left) - 40) / 60, 1))")  # leave time to pack

run() {  # run GPU TAG ARGS...
    local gpu=$1 tag=$2; shift 2
    (export CUDA_VISIBLE_DEVICES=$gpu
     step pf-$tag $LRA "$@" --tag $tag --max-minutes $MIN) &
}
run 0 aug        "${NYS[@]}" "${AUG[@]}"
run 0 sin        "${NYS[@]}" "${SIN[@]}"
run 1 sin-aug    "${NYS[@]}" "${SIN[@]}" "${AUG[@]}"
run 1 sin-aug-dense "${NYS[@]}" "${SIN[@]}" "${AUG[@]}" --layout dense
run 2 sin-aug-cls "${NYS[@]}" "${SIN[@]}" "${AUG[@]}" --set pooling=cls --layout "butterfly_local | global(1)"
run 2 sin-aug-nodrop "${NYS[@]}" "${SIN[@]}" "${AUG[@]}" --set dropout=0 --set attn_dropout=0
run 3 lra2-sin-aug "${LRA_LR[@]}" --set num_layers=2 "${SIN[@]}" "${AUG[@]}"
run 3 lra4-sin-aug "${LRA_LR[@]}" "${SIN[@]}" "${AUG[@]}"
wait
EXTRA=ckpt pack
