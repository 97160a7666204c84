# Session 41, device call 3 (call 2's warm H200): hopper_exp2's inline PTX against float64
# (its test kernel fixed), the D=64 Gluon forward's A/B with part of its exponentials by
# the polynomial (benchmarks/sessions/s41_exp_poly_fwd_ab.py) and its GPU tests against
# float64 with 2 of 8, then the README's bf16 CUDA-graph tables (D=64 and 128) on this
# tree (EXP_POLY 0 in both kernels, as landed).
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s41 call 3 (benchmarks/sessions/s41-call3.sh)"
nvidia-smi --query-gpu=name --format=csv,noheader
step checks-exp2 python -m pytest -q -p no:cacheprovider tests/test_hopper_exp2.py
tail -3 $LOGS/checks-exp2.log
step ab-fwd python benchmarks/sessions/s41_exp_poly_fwd_ab.py --rounds 2
grep -E "best" $LOGS/ab-fwd.log
knob_checks checks-fwd-poly hopper EXP_POLY 2 'gluon_forward_against'
graph_tables 64
graph_tables 128
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s41c3.tar.gz" -C $WORK results logs
