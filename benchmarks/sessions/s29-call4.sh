# Session 29, device call 4 (an H100): the Triton dK/dV kernel with dropout at D=128
# taken apart (call 3 found its dK off), then the GPU tests with dropout again.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step dkdv python benchmarks/sessions/s29_dkdv_dropout.py
pack
