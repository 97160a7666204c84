# Session 50, device call 10: the GPU test of the backward on the calling thread (the
# README's tip for short eager calls), with the CUDA-graph fwd+bwd tests beside it.
source benchmarks/sessions/common.sh
BUDGET=240
NOTE="s50 call 10 (benchmarks/sessions/s50-call10.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "calling_thread or forward_and_backward_replay"
tail -3 $LOGS/checks.log
pack
