"""Session 50: which forward should take D=64 ``causal`` with key padding at long rows
(``hopper_pingpong.D64_MASKED_ROW_KEYS``), and what padding costs each, from CUDA graphs.

    python benchmarks/sessions/s50_padded_kernel_ab.py [--rounds 2]

Why. Since session 49 ``hopper``'s own kernel takes unpadded D=64 ``causal`` at every
length (it carries P in float32 through its full tiles), but with key padding it still
carries P in bf16 (``hopper.carries_p_f32``: float32 spilled more there), so padded rows
of 2K keys or more go to the ping-pong kernel, which carries P in bf16 at D=64 without
dropout too: 32 byte swaps (PRMT) a round in either. Neither kernel's speed on padded
long rows had been measured (NOTES v50, next step 2).

What. The knob at 2,048 (the ping-pong kernel from 2K keys a row on) against a threshold
no row reaches (the own kernel everywhere), on ``causal`` with the FlashAttention paper's
E.6 padding (each sequence's length uniform in [N - 20, N]) and without padding (the own
kernel in both variants: the unpadded reference), at 4K, 16K and 64K.

Prediction: both padded kernels 5-9% slower than unpadded ``causal`` (the swaps cost
8-9% at 64K in session 49), the own one no faster than the ping-pong one at 16K and 64K.

Result (call 1, ``s50-call1.sh``, log ``results/NVIDIA-H200-padded-kernel-ab-s50-call1.log``),
best of two, default (ping-pong from 2K keys) / own, ms, outputs bit for bit equal:
padded ``causal`` 4K 0.384 / 0.374, 16K 1.305 / 1.352, 64K 20.27 / 20.04; unpadded
(own in both) 0.363 / 0.362, 1.317 / 1.313, 19.55 / 19.50. Padding cost 3-4% at 4K and 3%
at 64K against unpadded rows, not 5-9%; at 16K the padded ping-pong kernel ran as fast as
the unpadded own one. Neither kernel wins everywhere (own +2.7%, -3.4%, +1.2%): the rule
stays. This process ran every unpadded case ~7% slower than the next process on the same
machine a minute later (16K 1.32 against 1.22 ms, 64K 19.5 against 18.1, identical
kernels), the first on a freshly started machine: comparisons within it hold, its
absolute figures do not.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_pingpong

CASES = [(64, "causal", 0.0, 20), (64, "causal", 0.0)]


def main():
    ab.knob_ab_main(hopper_pingpong, "D64_MASKED_ROW_KEYS",
                    {"default": 2048, "own": 1 << 30}, [], forward=True,
                    shapes={(4, 16, 4096): CASES, (1, 16, 16384): CASES,
                            (1, 16, 65536): CASES})


if __name__ == "__main__":
    main()
