# Session 5, device call 3 (nvidia-h200): of call 2's variants only emb1-aug (token
# embeddings drawn with std 1, dihedral augmentation, Nystromformer recipe) left chance:
# at step 13,728 its validation loss fell under ln 2 (0.6929, accuracy 51.9%). Resume it,
# alone on the GPU, and rerun tests/test_gpu.py beside it (call 2's run was cut short).
# Needs: carry .carry (the emb1-aug checkpoint).
source benchmarks/sessions/common.sh
pathfinder32_data
MIN=$(python -c "print(round(($(left) - 40) / 60, 2))")
step pf-emb1-aug $LRA "${NYS[@]}" --set augment=dihedral --set embed_std=1.0 --tag emb1-aug \
    --resume .carry/lra-pathfinder32-full-emb1-aug-NVIDIA-H200.pt --max-minutes $MIN &
step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
wait
EXTRA=ckpt pack
