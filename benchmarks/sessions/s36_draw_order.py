"""Session 36: where the D=64 fused backward's warp groups draw dropout's bits, again.

    python benchmarks/sessions/s36_draw_order.py [--rounds R]

Session 31's probe (``s31_draw_order_ab.py``, NOTES v33) found (split, split) the best
place at D=64 on an H200. Since session 35 the tile loop takes K's and V's views per
tile, which changed the kernel's registers: Triton 3.6's ptxas for sm_90 now reports, at
D=64 with dropout, 492 spill bytes with (split, split) and 288 with (late, late) (920
and 984 with partial blocks). Rerun on an H100 (call 4 of this session), session 31's
probe measured (late, late) 7-9% faster than (split, split) on dense, ``local(3)`` and
``butterfly`` (no partial blocks). This probe runs session 31's ``run`` at D=64 with the
new default (late, late) first, (split, split) and (early, late), adding ``causal``
(partial blocks): every variant's dK and dV bit for bit the first's, then fwd+bwd with
dropout 0.1 from CUDA graphs, the variants alternating within each round.

Result (call 5, an H200; NOTES v38): (late, late) 7-9% faster than (split, split) on
dense, ``local(3)`` and ``butterfly``; on ``causal`` (early, late) 3% faster than (late,
late). Kept: ``DRAW_ORDER`` by head dim and partial blocks.
"""

import argparse

import torch
import triton

import s31_draw_order_ab as s31
from sparseflash.kernels import hopper_fused

L, S, E = hopper_fused.LATE, hopper_fused.SPLIT, hopper_fused.EARLY


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__,
          torch.cuda.get_device_name(), "| dropout", s31.P, flush=True)
    s31.VARIANTS[64] = [(L, L), (S, S), (E, L)]
    s31.run(4, 16, 4096, 64, torch.bfloat16, ["dense", "causal", "local(3)", "butterfly"],
            args.rounds)
    s31.run(16, 8, 4096, 64, torch.float16, ["dense", "causal", "butterfly"], args.rounds)


if __name__ == "__main__":
    main()
