# Session 44, device call 3: Flex's clocks through its dense fwd+bwd at D=64 and D=128,
# both dtypes (call 2's probe of Flex failed on a layout left on the CPU), for comparison
# with ours and cuDNN's at the power cap (calls 1 and 2).
source benchmarks/sessions/common.sh
BUDGET=400
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step clocks-d64-flex python benchmarks/sessions/s44_dtype_clocks.py --methods flex
cat $LOGS/clocks-d64-flex.log
step clocks-d128-flex python benchmarks/sessions/s44_dtype_clocks.py --head-dim 128 --methods flex
cat $LOGS/clocks-d128-flex.log
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s44c3.tar.gz" -C $WORK logs
