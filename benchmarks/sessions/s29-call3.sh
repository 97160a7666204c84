# Session 29, device call 3 (an H100): call 2's failing case (causal N=1000 D=128 fp16,
# dropout 0.3: dK) with either forward, then the probe, two rounds.
source benchmarks/sessions/common.sh
export SPARSEFLASH_NO_AUTOTUNE=1
step case python benchmarks/sessions/s29_dropout_case.py
step probe python benchmarks/sessions/s29_dropout_fwd_probe.py --shape e6 short --rounds 2
pack
