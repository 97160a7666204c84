# Session 18, device call 10 (nvidia-h200, one GPU): the Gluon tests after the review
# refactor (one input check, hopper.inputs_fit, for both Gluon kernels' usable(); one
# test helper for the two forced-Gluon float64 tests).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gluon-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k gluon
pack
