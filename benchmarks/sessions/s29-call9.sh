# Session 29, device call 9 (an H100): the barrier kept only in the dK/dV tile's
# untransposed branch (D=128 here); its cost against call 8's figures, and the Triton
# backward's dropout tests.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step cost-branch python benchmarks/sessions/s29_barrier_cost.py untransposed-only
step dkdv python benchmarks/sessions/s29_dkdv_dropout.py default
step gpu-triton-dropout python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "triton_dkdv_with_dropout or dropout_matches_torch or pingpong_forward_with_dropout_against"
pack
