# Session 15, device call 3 (one GPU): the Gluon forward inside sparseflash.
# 1. Its GPU tests (every row forced through it, then the default choice).
# 2. Per-kernel A/B in one tree: SPARSEFLASH_GLUON=0 (the Triton forward) against the
#    default (Gluon on long rows), alternating.
# 3. The whole of tests/test_gpu.py.
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gluon-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k gluon
export SPARSEFLASH_AUTOTUNE_CACHE=0
SPARSEFLASH_GLUON=0 step ab-triton-1 python benchmarks/sessions/s10_ab.py --label triton --out $RES/ab-triton-1.json
step ab-gluon-1 python benchmarks/sessions/s10_ab.py --label gluon --out $RES/ab-gluon-1.json
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
pack
