# Session 18, device call 4 (one GPU): (1) the GPU tests that swap kernels or spy on
# launch decisions, after plans became per-test; (2) wall-clock A/B of the host-path work:
# the README's short rows, fixed tiles (so both trees run the same kernels), the
# session-17 tree against this one, alternating processes, two rounds.
source benchmarks/sessions/common.sh
NEW=$PWD
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "candidate or tma or descriptors or gluon or direct"
old_tree .carry/old-s17.tar
A="python -m benchmarks.attention --seq-lens 16384 --head-dims 64 128 --dtypes bfloat16 --modes fwd fwd+bwd --methods sparseflash --patterns local(3) butterfly"
for r in 1 2; do
  SPARSEFLASH_NO_AUTOTUNE=1 old ab-old-$r $A "local(1) | global(1) | random(2)" --out $RES/ab-old-$r.json --note "s18 call 4 old"
  SPARSEFLASH_NO_AUTOTUNE=1 step ab-new-$r $A "local(1) | global(1) | random(2)" --out $RES/ab-new-$r.json --note "s18 call 4 new"
done
pack
