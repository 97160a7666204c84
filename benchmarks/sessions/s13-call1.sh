# Session 13, device call 1 (nvidia-h200, one GPU): cold start with the candidate tiles
# compiled in parallel and the picks kept on disk, against the tree before
# (.carry/old-tree.tar: session 12's final tree, sequential compiles, no disk picks).
# 1. tests/test_gpu.py on the new tree (fixed tiles): also the first GPU run of session
#    12's last kernel edit (consecutive_run KNOWN_RUN) and of dK/dV's KNOWN_RUN.
# 2. benchmarks/cold_start.py in fresh processes, each with an empty Triton cache: old
#    tree, new tree, then the new tree again on the cache the new run left (a restart).
source benchmarks/sessions/common.sh
NEW=$PWD
old_tree .carry/old-tree.tar
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-tests python -m pytest -q -p no:cacheprovider tests/test_gpu.py
for d in 64 128; do
  rm -rf /tmp/tc-old-$d /tmp/tc-new-$d
  old cold-old-d$d env TRITON_CACHE_DIR=/tmp/tc-old-$d python $NEW/benchmarks/cold_start.py \
      --head-dims $d --label "old tree, empty cache" --out $RES/cold-old-d$d.json
  step cold-new-d$d env TRITON_CACHE_DIR=/tmp/tc-new-$d python benchmarks/cold_start.py \
      --head-dims $d --label "new tree, empty cache" --out $RES/cold-new-d$d.json
  step cold-new-again-d$d env TRITON_CACHE_DIR=/tmp/tc-new-$d python benchmarks/cold_start.py \
      --head-dims $d --label "new tree, the cache of the run before" \
      --out $RES/cold-new-again-d$d.json
done
pack
