"""Session 55: ``hopper``'s own D=64 forward with the lazy rescale (``hopper.LAZY_RESCALE``)
against the exact one.

    PYTHONPATH=. python benchmarks/sessions/s55_lazy_rescale_ab.py [--rounds 3]

Why. A trip of the D=64 tile loop issues 457 instructions a warp (Triton 3.6, SASS), and
the forward gives way on its issue slots before its units (NOTES v23). 32 of them
(FMUL) rescale the thread's share of the output by the factor of the row's new maximum.
With the maximum moved only when a tile's passes it by more than 8 (base 2), as
FlashAttention-4 does, the factor is exactly 1 on almost every tile after the first, and
a branch in inline PTX skips the multiplications: 436 instructions on the common path
(two compares and a select a row and a two-compare test cost 11 of the 32 saved).

Prediction: dense and long rows 1-3% faster (4.6% fewer instructions a trip, not all of
the trip's time issue-bound), short rows (3 tiles, a rescale only from tile 1) 0-2%.
The inputs are standard normal: after the first tile a row's maximum almost never moves
by 8, so this is the lazy form's common case.

Call 2 adds the form in which the warp votes (``warp``: any thread's rows moved, then a
uniform branch): ptxas then keeps the loop free of the reconvergence barrier (BSSY/BSYNC)
that the thread's own branch (``thread``) put around most of the trip.

Result: see NOTES v56.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper

if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly",
                                    "local(1) | global(1) | random(2)", "dense", "causal")]
    ab.knob_ab_main(hopper, "LAZY_RESCALE", {"exact": 0, "thread": 1, "warp": 2}, cases,
                    forward=True, shapes={(1, 16, 16384): cases, (4, 16, 4096): cases[:2]})
