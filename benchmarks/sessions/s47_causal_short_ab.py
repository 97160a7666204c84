"""Session 47: which forward takes D=64 ``causal`` at short sequences
(``hopper_pingpong.D64_MASKED_ROW_KEYS``), from CUDA graphs.

    python benchmarks/sessions/s47_causal_short_ab.py [--rounds 2]

Why. Session 47's N sweep (call 1, 16K tokens a call, bf16) had sparseflash's D=64
``causal`` forward behind cuDNN's at short sequences: 277 TFLOP/s against 348 at N = 1K
(16 sequences), 373 against 407 at 4K, where at 16K it is 0.96-0.98x cuDNN's. At 1K the
rows average 576 keys, under the 2,048 at which a layout with partial blocks goes to the
ping-pong kernel, so ``hopper``'s own kernel runs it; at 4K (2,112) the ping-pong one.
Session 32 set the threshold from 16K and 4K alone (NOTES v34: at 4K 0.386-0.387 ms
against 0.391-0.392). Variants: the default (2,048), the ping-pong kernel for every
layout with partial blocks (0), and ``hopper``'s own for every one (a threshold no row
reaches). Prediction: none known for 1K (never measured); at 4K within 2% as in session
32; at 16K the ping-pong kernel 7% faster (NOTES v34).
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_pingpong

CAUSAL = [(64, "causal", 0.0)]


def main():
    ab.knob_ab_main(hopper_pingpong, "D64_MASKED_ROW_KEYS",
                    {"default": 2048, "pingpong": 0, "own": 1 << 30}, [], forward=True,
                    shapes={(16, 16, 1024): CAUSAL, (4, 16, 4096): CAUSAL,
                            (1, 16, 16384): CAUSAL})


if __name__ == "__main__":
    main()
