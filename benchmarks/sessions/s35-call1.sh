# Session 35, device call 1: the fused backward's memory passes ordered for L2 (the delta
# kernel last head first, dQ cast by a Triton kernel, last head first) -- its GPU tests
# against float64 first (the knobs' defaults are the new order), then alternating with
# main's order (s35_l2_order_ab.py).
source benchmarks/sessions/common.sh
BUDGET=590
step checks python -m pytest -q -x tests/test_gpu.py -k "fused_backward_against or fused_backward_with_dropout or dq_cast or deterministic"
tail -5 $LOGS/checks.log
step l2order python benchmarks/sessions/s35_l2_order_ab.py --rounds 2
cat $LOGS/l2order.log
pack
