# Session 12, device call 7 (nvidia-h200, one GPU), the final tree: the dQ kernel keeps its
# partial walk above D=64 (calls 3-5: dense D=128 dQ 3.5% slower without it).
# 1. Per-kernel A/B at D=128 against session 11's kernels.  2. The D=128 half of the
#    README's speed table on this tree (the D=64 half is call 5's: no D=64 kernel changed).
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
old ab-old python $NEW/benchmarks/sessions/s10_ab.py --label old --head-dims 128 --out $RES/ab-old.json
step ab-new python benchmarks/sessions/s10_ab.py --label new --head-dims 128 --out $RES/ab-new.json
step table-d128 python -m benchmarks.attention --seq-lens 16384 --head-dims 128 \
    --dtypes bfloat16 --patterns dense causal "local(3)" butterfly "local(1) | global(1) | random(2)" \
    --modes fwd fwd+bwd --methods sparseflash flex sdpa-cudnn --out $RES/table-d128.json \
    --note "s12 call 7 (benchmarks/sessions/s12-call7.sh), alone on the GPU"
pack
