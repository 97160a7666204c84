# Session 6, device call 1 (nvidia-h200-x4): Pathfinder-32 beyond 64.4%. The session-5 run
# (emb1-aug: std-1 token embeddings, dihedral augmentation, Nystromformer recipe) ended
# with training accuracy 66.7% and validation 64%: it underfits. So more learning rate,
# depth or width, one per GPU, and the control the README lacks (std-1 embeddings without
# augmentation). GPU 0 first probes Triton's Hopper features (seconds).
source benchmarks/sessions/common.sh
NYS+=(--set embed_std=1.0)
AUG=(--set augment=dihedral)
END=$((START + BUDGET - 40))
run() {  # run GPU TAG ARGS...: train until END (resuming TAG's checkpoint from .carry if any)
    local gpu=$1 tag=$2; shift 2
    local ckpt=.carry/lra-pathfinder32-full-$tag-NVIDIA-H200.pt resume=()
    [ -e "$ckpt" ] && resume=(--resume "$ckpt")
    (export CUDA_VISIBLE_DEVICES=$gpu
     MIN=$(python -c "print(round(($END - $(date +%s)) / 60, 2))")
     step pf-$tag $LRA "$@" --tag $tag "${resume[@]}" --max-minutes $MIN) &
}
CUDA_VISIBLE_DEVICES=0 step probe python benchmarks/sessions/s6_probe.py &
pathfinder32_data
run 0 emb1-aug-lr3e-4 "${NYS[@]}" "${AUG[@]}" --set lr=3e-4
run 1 emb1-aug-4l     "${NYS[@]}" "${AUG[@]}" --set num_layers=4 --set lr=2e-4 --set steps=31200
run 2 emb1-aug-d128   "${NYS[@]}" "${AUG[@]}" --set d_model=128 --set num_heads=4 --set ffn_dim=256 --set lr=2e-4 --set steps=46800
run 3 emb1            "${NYS[@]}"
wait
EXTRA=ckpt pack
