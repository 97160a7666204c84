# Session 41, device call 2 (an H200): hopper_exp2's inline PTX against float64, the fused
# backward's GPU tests against float64 with 2 of 8 exponentials by the polynomial, then
# its A/B (benchmarks/sessions/s41_exp_poly_ab.py) from CUDA graphs.
source benchmarks/sessions/common.sh
BUDGET=560
nvidia-smi --query-gpu=name --format=csv,noheader
step checks-exp2 python -m pytest -q -p no:cacheprovider tests/test_hopper_exp2.py
tail -3 $LOGS/checks-exp2.log
step ab python benchmarks/sessions/s41_exp_poly_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/ab.log
knob_checks checks-poly hopper_fused EXP_POLY 2 \
    'fused_backward_against or fused_backward_with_dropout'
tar -czf "$OUT/s41c2.tar.gz" -C $WORK results logs
