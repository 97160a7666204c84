# Session 5, device call 4 (nvidia-h200): finish emb1-aug (call 3 took it from chance to
# 64% validation accuracy by step 46,176 of 62,400) and test it; beside it, the GPU tests
# on the final tree, with a stack dump of any test that runs past 150 s (in call 3 the
# whole-model gradient test did not finish while training shared the GPU).
# Needs: carry .carry (the emb1-aug checkpoint of call 3).
source benchmarks/sessions/common.sh
pathfinder32_data
MIN=$(python -c "print(round(($(left) - 40) / 60, 2))")
step pf-emb1-aug $LRA "${NYS[@]}" --set augment=dihedral --set embed_std=1.0 --tag emb1-aug \
    --resume .carry/lra-pathfinder32-full-emb1-aug-NVIDIA-H200.pt --max-minutes $MIN &
step gpu-tests python -m pytest -q -p no:cacheprovider -o faulthandler_timeout=150 \
    --durations=8 tests/test_gpu.py
wait
EXTRA=ckpt pack
