# Session 12, device call 2 (nvidia-h200, one GPU): the forward's per-program ladder on
# short rows (s12_forward_ladder.py), after call 1's persistent probe.
source benchmarks/sessions/common.sh
step ladder python benchmarks/sessions/s12_forward_ladder.py --seq-len 16384
pack
