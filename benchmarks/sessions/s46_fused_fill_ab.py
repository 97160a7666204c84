"""Session 46, call 2: the fused backward's fill (``hopper_fused.FILL_LAST_WAVE``) at the
README's shape, at D=128 and with dropout at D=64, on this tree, whose fill variant
derives its coordinates anew after the tile loop (``hopper._program_id_again``; call 1,
``s46_own_fill_ab.py``, read the dense D=64 backward 2-3.5% faster with the fill where
session 45's fill variant gained nothing measurable).

    python benchmarks/sessions/s46_fused_fill_ab.py [--rounds 2]

Prediction: as in session 45 (D=128 0.6%, dropout 1.0%), or up to 2% better.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    ab.knob_ab_main(hopper_fused, "FILL_LAST_WAVE", {"whole": False, "fill": True},
                    [(128, "dense", 0.0), (64, "dense", 0.1)])


if __name__ == "__main__":
    main()
