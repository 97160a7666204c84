# Session 38, device call 5 (an H100, held warm after call 4; run as one command): dense
# D=64 fwd and fwd+bwd, sparseflash with DK_EARLY on (as landed for calls without dropout)
# and cuDNN in one process, from CUDA graphs, in the last ~100 s of the session's device
# time. Records "s38 call 5" of benchmarks/results/NVIDIA-H100-attention-cudagraph.json.
PYTHONPATH=$PWD python -m benchmarks.attention --seq-lens 16384 --modes fwd fwd+bwd \
    --dtypes bfloat16 --methods sparseflash sdpa-cudnn --head-dims 64 --timer cudagraph \
    --patterns dense --out $OUT/s38c5.json \
    --note "s38 call 5 (DK_EARLY on, branch s38-dk-early): sparseflash and cuDNN in one process"
