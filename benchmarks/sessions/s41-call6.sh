# Session 41, device call 6 (an H200, the session's last ~4 minutes): the early dK from
# registers (benchmarks/sessions/s41_dk_registers_ab.py) A/B from CUDA graphs, then the
# fused backward's GPU tests against float64 without dropout, bf16 (dtype1), with it on.
source benchmarks/sessions/common.sh
BUDGET=190
step ab python benchmarks/sessions/s41_dk_registers_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/ab.log
knob_checks checks-dk-registers hopper_fused DK_FROM_REGISTERS True \
    'fused_backward_against and dtype1'
tar -czf "$OUT/s41c6.tar.gz" -C $WORK results logs
