"""Session 47: the D=64 forward's first-wave second programs started later
(``hopper.STAGGER_CYCLES``), against all programs starting at once, from CUDA graphs.

    python benchmarks/sessions/s47_stagger_ab.py [--rounds 2]

(On branch ``s47-stagger``, or on main after ``git apply
benchmarks/sessions/s47_stagger.patch``: it holds the knob, which main does not keep,
since the result below refuted it.)

Why. ``hopper``'s own D=64 forward runs two programs an SM. On short rows it keeps
67-85% of its dense TFLOP/s (session 46's tables: ``local(1)`` 67%, ``local(3)`` 84%).
By the dense kernel's rate (1.17 us a tile of an SM), ``local(1)``'s 46.3 tiles an SM
take 54 us of its 80 us; the other 26 us are 1.7 us a program, 3.4 us a pair of
programs. A model where the two programs on an SM start together and run in step (the
grid's programs are equal, so each pair ends together and the next pair starts
together) fits that with one fixed cost c = 3.3 us an item (its start and epilogue,
waiting on memory) during which both programs leave the SM idle; ``local(3)``'s 84%
fits it with the same c. If instead one program's wait falls while the other computes
alone (at ``schedule.LONE_RATE`` = 0.75 of the SM), a pair's period is 2nT + c/2 for
2nT + c: ``local(1)`` 16% and ``local(3)`` 8% sooner, dense nothing. A program that
waits ``STAGGER_CYCLES`` at its start in the first wave's second slot on each SM shifts
every later program on that slot by as much (each slot runs its programs back to back).

Prediction: if the programs run in step, 5-16% off ``local(1)``, ``local(3)``,
``butterfly`` and ``chunk(8)`` forwards at 3,000-12,000 cycles (1.6-6.5 us at ~1.85
GHz), dense within 1% (the wait once, 2-6 us of 2.3 ms). If they do not, nothing
anywhere, or a loss of the wait's length (2-8% of a 80 us forward).

Result (call 1, ``s47-call1.sh``, log ``results/NVIDIA-H200-stagger-s47-call1.log``; best
of two rounds, ms; outputs equal to the unstaggered run's): nothing gained anywhere.
``local(1)`` 0.081 against 0.081-0.083, ``local(3)`` 0.146 against 0.147, the other
sparse layouts 0.0-2.7% slower (most at 12,000 cycles), dense within +-0.7%. Refuted:
the programs on an SM do not run in step, or their fixed cost is not a wait both share.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper

CASES = [(64, pattern, 0.0) for pattern in (
    "local(1)", "local(3)", "butterfly", "chunk(8)", "local(1) | global(1) | random(2)",
    "bigbird", "strided(sqrt(n))", "dense")]


def main():
    ab.knob_ab_main(hopper, "STAGGER_CYCLES",
                    {"off": 0, "3000": 3000, "6000": 6000, "12000": 12000}, CASES,
                    forward=True)


if __name__ == "__main__":
    main()
