# Session 44, device call 1: the tree with the loader's and the dQ warp's arguments written
# out in the warp_specialize calls (constexprs again; the machine code differs from
# session 43's only on layouts with partial blocks) checked against float64 on the GPU;
# whether float16's 2.3-3.6% against bf16 (dense D=64, ours and cuDNN's) is the clock
# (s44_dtype_clocks.py); then the bf16 D=64 CUDA-graph table on this tree.
source benchmarks/sessions/common.sh
BUDGET=560
NOTE="s44 call 1 (benchmarks/sessions/s44-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k 'fused_backward or non_positive_scale or dropout_matches_torch'
tail -3 $LOGS/checks.log
step clocks python benchmarks/sessions/s44_dtype_clocks.py
cat $LOGS/clocks.log
graph_tables 64
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s44c1.tar.gz" -C $WORK results logs
