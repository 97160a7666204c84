# Session 17, device call 12 (nvidia-h200, one GPU): the Gluon tests after the refactor that
# shares the schedule read, descriptors and partial-block mask between the two Gluon kernels
# (forward and dK/dV forced at both head dims, the choices, and the whole-file float64 cases).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gluon-tests python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py::test_gluon_backward_against_float64 \
    tests/test_gpu.py::test_gluon_backward_choice tests/test_gpu.py::test_gluon_forward_choice \
    tests/test_gpu.py::test_gluon_forward_against_float64 tests/test_gpu.py::test_against_float64
pack
