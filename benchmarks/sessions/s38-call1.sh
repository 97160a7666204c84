# Session 38, device call 1: the forward's merge of split rows started by programmatic
# (Ran on commit 4d6bdb4, now branch s38-forward-pdl: main backed the merge's PDL out after it.)
# dependent launch (hopper.PDL_MERGE) -- a race check (the PDL forward 2 x 60 times
# against the PDL-off one), the A/B from CUDA graphs, a timeline of one fwd+bwd's
# kernels with every PDL on and off (s38_forward_pdl.py), then the Gluon forwards' GPU
# tests against float64 (every split-row case among them) and the graph tests.
source benchmarks/sessions/common.sh
BUDGET=570
step pdl python benchmarks/sessions/s38_forward_pdl.py --rounds 2 --stress 60 \
    --trace $RES/traces
grep -E "stress|best|timeline" $LOGS/pdl.log
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py \
    -k "gluon_forward_against or pingpong_forward_against or pingpong_forward_with_dropout_against or split_rows_happen or cuda_graph or direct_launch or d64_forward_choice"
tail -3 $LOGS/checks.log
pack
