# Session 27, device call 1 (one H100/H200): the probe that chooses the session's work:
# is there a last-wave loss on dense calls (16 heads against 33), and what does key
# padding cost now that it sends calls to the Triton kernels.
source benchmarks/sessions/common.sh
step probe python benchmarks/sessions/s27_probe.py
pack
