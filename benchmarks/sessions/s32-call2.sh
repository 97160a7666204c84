# Session 32, device call 2: the dense backward's last wave (s32_tail_probe.py: sparseflash
# and cuDNN at 16, 33 and 66 heads, D=64 and 128, N = 16K, from CUDA graphs).
source benchmarks/sessions/common.sh
BUDGET=400
step tail python benchmarks/sessions/s32_tail_probe.py
cat $LOGS/tail.log
pack
