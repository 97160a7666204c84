"""Session 45: the persistent (ping-pong) forward filling its last wave
(``hopper_pingpong.FILL_LAST_WAVE``) against whole items, from CUDA graphs.

    python benchmarks/sessions/s45_fill_fwd_ab.py [--rounds 2]

The kernel's persistent programs (one an SM) draw 128-row work items from a counter: at the
README's shape (B=1, 16 heads, N=16K, block 128, D=128) 2,048 dense items are 15.5 rounds
of 132 programs, and ``schedule.fill_last_wave`` plans (15, 3), the last head's 128 items
in three chunks each, merged afterwards; one head of 17,920 tokens (140 items, 1.06
rounds) gets (0, 4). Prediction: at one head 25-35% less time (the simulation's 36% less
the merge), at 16 heads 0-1% (the forward is held at the power limit too, NOTES v46, as the
dense D=64 backward, whose fill gained nothing there).

It ran (call 4) with the loop over shapes written out here; that loop is now
``ab.knob_ab_main``'s ``shapes``, the same calls in the same order.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_pingpong


def main():
    ab.knob_ab_main(hopper_pingpong, "FILL_LAST_WAVE", {"whole": False, "fill": True}, [],
                    forward=True,
                    shapes={(1, 1, 17920): [(128, "dense", 0.0)],
                            (1, 16, 16384): [(128, "dense", 0.0), (128, "dense", 0.1)]})


if __name__ == "__main__":
    main()
