"""Session 55: ``hopper``'s own D=64 forward with the lazy rescale (``hopper.LAZY_RESCALE``)
against the exact one.

    PYTHONPATH=. python benchmarks/sessions/s55_lazy_rescale_ab.py [--rounds 3]

Why. A trip of the D=64 tile loop issues 457 instructions a warp (Triton 3.6, SASS), and
the forward gives way on its issue slots before its units (NOTES v24). 32 of them
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

The knob's values are those of the tree each call ran: call 1 commit 179559e (True /
False; its branch was ``bra.uni`` on a per-thread predicate, undefined where a warp's
threads differ, which the rising-score tests did not catch), call 2 commit df812a3 (0, 1
with a plain ``bra``, 2). Since b283b1d the knob is a bool again and reaches only layouts
with partial blocks (``hopper.lazy_rescale``): run ``s55_lazy_causal_ab.py`` on later trees.

Result (best of three, exact -> lazy, ms; logs
``benchmarks/results/NVIDIA-H200-lazy-rescale-ab-s55-call1.log`` and ``-call2.log``):

| | call 1 | call 2, thread | call 2, warp |
|---|---|---|---|
| `local(1)` | -0.6% | -0.5% | -0.7% |
| `local(3)` | -0.8% | -0.3% | -0.3% |
| `butterfly` | +0.7% | +0.9% | +0.7% |
| random+global | +0.7% | +0.8% | +0.7% |
| dense | -1.4% (2.189 -> 2.221) | -0.0% | +0.8% |
| `causal` | +3.8% (1.205 -> 1.161) | +3.5% | +2.7% |
| B=4, N=4K `local(1)` / `local(3)` | -0.9% / +0.0% | -0.1% / -0.6% | -0.0% / -0.1% |

The prediction held for `causal` alone (the variant that carries P in float32); on full
blocks the 21 instructions saved a trip moved nothing beyond the runs' spread. NOTES v56.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper

if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly",
                                    "local(1) | global(1) | random(2)", "dense", "causal")]
    ab.knob_ab_main(hopper, "LAZY_RESCALE", {"exact": 0, "thread": 1, "warp": 2}, cases,
                    forward=True, shapes={(1, 16, 16384): cases, (4, 16, 4096): cases[:2]})
