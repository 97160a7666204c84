# Session 23, device call 11 (nvidia-h200, one GPU): the persistent forward captured in a
# CUDA graph and replayed on new inputs (its counter must be zeroed by every replay).
source benchmarks/sessions/common.sh
step tests env SPARSEFLASH_NO_AUTOTUNE=1 python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py -k "replays"
pack
