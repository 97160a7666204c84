# Session 58, device call 1: the whole GPU suite (tests/test_gpu.py, 385 tests against
# float64) on an H100, where the current kernels had not run: session 39 was the last on
# one. pytest-xdist's eight workers share the GPU, so the suite's Triton and Gluon compiles
# (most of its ~30 minutes when run serially) proceed in parallel.
# Result (log benchmarks/results/NVIDIA-H100-checks-s58-call1.log, NOTES v59): 384 passed,
# 1 skipped (it needs a second GPU) in 249 s on an H100 80GB HBM3 with Triton 3.6.
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s58 call 1 (benchmarks/sessions/s58-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
python -c "import torch, triton; print(torch.__version__, triton.__version__)"
step gpu-suite python -m pytest -q -p no:cacheprovider -n 8 --durations=10 tests/test_gpu.py
tail -20 $LOGS/gpu-suite.log
pack
