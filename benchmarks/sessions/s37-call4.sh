# Session 37, device call 4 (an H100): dQ's cast gated by counts of finished fused
# programs (GATED_CAST) -- race check and A/B against the cast after the fused kernel
# (s37_gated_ab.py), then the fused backward's GPU tests and the graph tests.
source benchmarks/sessions/common.sh
BUDGET=570
step gated python benchmarks/sessions/s37_gated_ab.py --rounds 2 --stress 60
grep -E "stress|best|DIFFER" $LOGS/gated.log
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "fused_backward_against or fused_backward_with_dropout or cuda_graph or direct_launch"
tail -3 $LOGS/checks.log
pack
