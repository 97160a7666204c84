# Session 27, device call 4 (one H100/H200): the rest of the GPU tests after key padding
# moved to the Gluon kernels (all but those calls 2-3 ran and the Triton autotuning
# candidates, which the change does not touch), and the CPU test files on the GPU.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gpu-rest python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "not (fused_backward \
or test_against_float64 or gluon_forward or serial_gluon or pingpong or every_candidate_tile)"
step cpu-files-on-gpu python -m pytest -q -p no:cacheprovider tests/test_nn.py \
    tests/test_compile.py tests/test_attention.py -x
pack
