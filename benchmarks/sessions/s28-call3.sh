# Session 28, device call 3 (an H100): where a call with dropout spends its time: the
# forwards alone (the Triton forward with dropout, the Gluon one without, cuDNN with and
# without) on both shapes of the dropout probe.
source benchmarks/sessions/common.sh
step probe-fwd python benchmarks/sessions/s28_dropout_probe.py --shape e6 short --rounds 1 --fwd
pack
