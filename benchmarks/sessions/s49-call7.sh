# Session 49, device call 7 (review): hopper's own forward with P_F32 set on the host
# (hopper.carries_p_f32) rather than derived in the kernel: the kernel-choice cases and
# the own kernel's causal and padded cases against float64.
source benchmarks/sessions/common.sh
BUDGET=170
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "d64_forward_choice or (gluon_forward_against and (causal or holes) and not dtype1)"
tail -3 $LOGS/checks.log
pack
