# Session 18, device call 9 (nvidia-h200, one GPU): 4-stage backward tiles as autotune
# candidates on rows/columns of 16 blocks or more (launch.DEEP_LENGTH_CLASS).
# 1. Every dQ and dK/dV candidate tile against float64 (the new ones included).
# 2. fwd+bwd of dense and causal (the long rows that see the new tiles) and local(3) (a
#    control: its rows never do), autotuned, the tree before against this one,
#    alternating processes, two rounds.
source benchmarks/sessions/common.sh
NEW=$PWD
SPARSEFLASH_NO_AUTOTUNE=1 step tile-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "every_candidate and (dq or dkdv)"
old_tree .carry/old-s18.tar
A="python -m benchmarks.attention --seq-lens 16384 --head-dims 64 128 --dtypes bfloat16 --modes fwd+bwd --methods sparseflash --patterns dense causal local(3)"
for r in 1 2; do
  old ab-old-$r $A --out $RES/ab-old-$r.json --note "s18 call 9 old"
  step ab-new-$r $A --out $RES/ab-new-$r.json --note "s18 call 9 new"
done
step profile-new python -m benchmarks.profile_call --pattern dense --seq-len 16384 --head-dim 64
pack
