# Session 29, device call 5 (an H100): which change makes the Triton dK/dV kernel with
# dropout at D=128 right (call 4: racy where the layout has partial blocks): the default
# tile (32, 64, 4 warps, 3 stages) with and without a barrier after the keep mask, two
# stages, other tiles.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
S=benchmarks/sessions/s29_dkdv_dropout.py
step dkdv-default python $S default
SPARSEFLASH_DKDV_DROPOUT_BARRIER=1 step dkdv-barrier python $S default
step dkdv-2stages python $S 32,64,4,2
step dkdv-1stage python $S 32,64,4,1
step dkdv-64x64 python $S 64,64,4,3
step dkdv-64x128 python $S 64,128,8,3
pack
