# Session 16, device call 2 (one GPU): the Gluon forward with D=64 run-walked layouts
# capped at 128 registers (two programs an SM), its A/B against the Triton forward, the
# same with every D=64 variant capped, then the Gluon GPU tests.
source benchmarks/sessions/common.sh
step gluon-ab python benchmarks/sessions/s16_gluon_ab.py
step gluon-ab-cap128 python benchmarks/sessions/s16_gluon_ab.py --maxnreg 128 --d 64
export SPARSEFLASH_NO_AUTOTUNE=1
step gluon-tests python -m pytest -q -x tests/test_gpu.py -k gluon
pack
