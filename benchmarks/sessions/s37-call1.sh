# Session 37, device call 1 (an H100): the backward's launches chained by programmatic
# dependent launch and the split columns' dK and dV summed in one launch -- a race check
# (the PDL backward 2 x 60 times against the PDL-off one), the A/B from CUDA graphs
# against the tree before (s37_pdl_ab.py; s37_base = `git archive HEAD sparseflash` of
# be1fc06), then the fused backward's GPU tests and the graph tests against float64.
source benchmarks/sessions/common.sh
BUDGET=570
step pdl python benchmarks/sessions/s37_pdl_ab.py s37_base --rounds 2 --stress 60
grep -E "stress|best|DIFFER" $LOGS/pdl.log
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "fused_backward_against or fused_backward_with_dropout or cuda_graph or split_rows_happen or direct_launch"
tail -3 $LOGS/checks.log
pack
