"""Session 43: call 2's A/B of the dQ hand-offs on named barriers
(``s43_named_dq_ab.py``, ``hopper_fused.NAMED_DQ``) again on calls with dropout only,
which is where the knob now applies (``hopper_fused.named_dq``), from CUDA graphs.

    python benchmarks/sessions/s43_named_dq_dropout_ab.py [--rounds 2]

Call 2: dense D=64 with dropout 0.1 9.791-9.802 ms on the mbarriers against 9.654-9.655
on named barriers (+1.4%, every run); without dropout the named barriers were 1.0-4.1%
slower. Prediction: the same +1-2% with dropout at D=128 and on ``causal`` (128 x 64
tiles with partial blocks), where the consumers' dropout draws also fill the tile.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.1), (128, "dense", 0.1), (64, "causal", 0.1),
             (128, "local(3)", 0.1)]
    ab.knob_ab_main(hopper_fused, "NAMED_DQ", {"mbarriers": False, "named": True}, cases)


if __name__ == "__main__":
    main()
