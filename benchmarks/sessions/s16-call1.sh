# Session 16, device call 1 (one GPU): the reordered Gluon forward's GPU tests, then its
# A/B against the Triton forward on the README's patterns.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step gluon-tests python -m pytest -q -x tests/test_gpu.py -k gluon
unset SPARSEFLASH_NO_AUTOTUNE
step gluon-ab python benchmarks/sessions/s16_gluon_ab.py
pack
