# Session 51, device call 6: the first wave's second programs skewed by 4 us in hopper's
# own D=64 forward (s51_skew_ab.py, the probe knob hopper.FIRST_WAVE_SKEW_NS).
source benchmarks/sessions/common.sh
BUDGET=190
NOTE="s51 call 6 (benchmarks/sessions/s51-call6.sh)"
step skew-ab python benchmarks/sessions/s51_skew_ab.py --rounds 2
cat $LOGS/skew-ab.log
pack
