# Session 27, device call 5 (an H200): the padding probe of calls 1-2 on the other GPU the
# issue names (padded against unpadded calls, now both on the Gluon kernels), and the
# padded Gluon cases of the GPU tests after mask_padding took the forwards' two masking
# helpers into one (PTX of the padded variants unchanged under Triton 3.6).
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step probe-b python benchmarks/sessions/s27_probe.py b
step gpu-padded python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "(gluon_forward_against or pingpong_forward_against or fused_backward_against) and (pad or holes or empty)"
pack
