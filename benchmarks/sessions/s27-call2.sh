# Session 27, device call 2 (one H100/H200): key padding in the Gluon kernels (the D=64
# forward, the D=128 ping-pong forward, the fused backward). The probe's padding part
# (padded against unpadded calls; call 1 measured the Triton kernels' padded figures),
# then the GPU tests of the Gluon kernels and the default paths, padded cases included.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step probe-b python benchmarks/sessions/s27_probe.py b
step gpu-fused python -m pytest -q -p no:cacheprovider tests/test_gpu.py -x \
    -k "fused_backward or test_against_float64 or gluon_forward_choice"
step gpu-forward python -m pytest -q -p no:cacheprovider tests/test_gpu.py -x \
    -k "gluon_forward_against or serial_gluon or pingpong_forward_against"
pack
