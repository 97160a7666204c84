"""Session 49: which forward takes D=64 ``causal`` at long sequences now that
``hopper``'s own kernel no longer spills on partial blocks
(``hopper_pingpong.D64_MASKED_ROW_KEYS``), from CUDA graphs.

    python benchmarks/sessions/s49_causal_kernel_ab.py [--rounds 2]

Why. At N = 64K the D=64 ``causal`` forward ran at 88% of sparseflash's dense one (440
against 500 TFLOP/s, NOTES v48, bf16), and its fwd+bwd at 1.70x Flex (the mark is 1.8x).
Rows that long (32K keys on average) go to the ping-pong kernel, which session 32 chose
over ``hopper``'s own because the own one, capped at 128 registers a thread for its second
program, spilled 72-88 bytes on partial blocks and ran ``causal`` 7-8% slower at 16K
(NOTES v34; again in v48: 1.370 against 1.269 ms). Session 48's one-compare mask
(``hopper.partial_select``) took that spill away (compile test
``test_own_forward_partial_blocks_do_not_spill``), while on dense and short rows the own
kernel is 5-12% faster than the ping-pong one. Variants: the default (2,048: the ping-pong
kernel from 2K keys a row on) and ``hopper``'s own for every layout (a threshold no row
reaches). ``causal | local(0)`` (the same tiles with full diagonal blocks, no partial
ones: the own kernel in both variants) and dense are the ceilings. Prediction: the own
kernel now within 2% of ``causal | local(0)`` and 5-10% faster than the ping-pong one
at 16K and 64K; at 4K within 2% either way.

Result, call 1 (``s49-call1.sh``, log ``results/NVIDIA-H200-kernel-choice-s49-call1.log``),
best of two, default / own, ms: 4K 0.358 / 0.364, 16K 1.264 / 1.331, 64K 19.90 / 19.81;
``causal | local(0)`` 0.327, 1.218-1.224, 18.17-18.27. Refuted: both kernels ran
``causal`` 8-9% slower than its tiles without partial blocks at 64K, which led to P's
byte swaps (NOTES v50, ``s49_pcarry_ab.py``). Again in call 3 (``s49-call3.sh``, log
``-kernel-choice-s49-call3.log``), the own kernel carrying P in float32: 4K 0.359 / 0.338,
16K 1.261 / 1.214, 64K 19.88 / 18.29 (``causal | local(0)`` 0.328, 1.212, 18.05): the own
kernel takes these calls since (commit 361c0c5), so that from there on this knob no longer
moves them (``hopper.bind_forward`` passes no masked keys where the own kernel carries P in
float32) and this script compares the own kernel with itself.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_pingpong

CASES = [(64, "causal", 0.0), (64, "causal | local(0)", 0.0)]


def main():
    ab.knob_ab_main(hopper_pingpong, "D64_MASKED_ROW_KEYS",
                    {"default": 2048, "own": 1 << 30}, [], forward=True,
                    shapes={(4, 16, 4096): CASES, (1, 16, 16384): CASES,
                            (1, 16, 65536): CASES + [(64, "dense", 0.0)]})


if __name__ == "__main__":
    main()
