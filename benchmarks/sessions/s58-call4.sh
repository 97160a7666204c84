# Session 58, device call 4: the length sweep in float16 and the README's do_bench tables
# (five headline patterns at 16K, D=64 and 128, bf16) on an H100.
# Result (records `s58 call 4` of NVIDIA-H100-attention-cudagraph.json and
# NVIDIA-H100-attention.json in benchmarks/results, logs there
# NVIDIA-H100-attention-sweep-float16-s58-call4.log and -events-s58-call4.log, NOTES v59):
# in float16 dense at 98.6-110.3% of cuDNN's speed and the same Flex misses as call 3's
# (1.47x, 1.53x); do_bench at 16K, dense D=64 500 / 479 TFLOP/s (cuDNN 445 / 436), one of
# the twelve sparse figures set by the host.
source benchmarks/sessions/common.sh
BUDGET=520
NOTE="s58 call 4 (benchmarks/sessions/s58-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
length_sweep float16
event_tables 64
event_tables 128
grep -h "exit" $LOGS/sweep-fp16*.log $LOGS/*events*.log
pack
