"""Session 46, call 3: the fused backward's fill (``hopper_fused.FILL_LAST_WAVE``) on the
dense D=64 backward at the README's shape again, three rounds, on another start of the
machine than call 1's (``s46_own_fill_ab.py``: 5.872-6.185 ms whole, 5.670-5.881 fill).

    python benchmarks/sessions/s46_fused_fill_d64_ab.py [--rounds 3]
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    ab.knob_ab_main(hopper_fused, "FILL_LAST_WAVE", {"whole": False, "fill": True},
                    [(64, "dense", 0.0)], rounds=3)


if __name__ == "__main__":
    main()
