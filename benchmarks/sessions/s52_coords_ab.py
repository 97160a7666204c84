"""Session 52: ``hopper``'s own forward with its coordinates taken without integer
divisions (the 3-D grid and ``_own_item`` / ``_own_coords``) against the tree before.

    PYTHONPATH=. python benchmarks/sessions/s52_coords_ab.py OLD_TREE [--rounds 2]

Why. Call 1's clock trace (``s52_trace.py``, NOTES v53) put ~1,900 cycles between a
program's start and its Q copy's issue, on every pattern alike, and ~850-1,070 in the
epilogue's normalisation and second derivation of the coordinates. The SASS before the
third TMA copy was 301 instructions, four of them integer divisions by runtime values
(~25 instructions each: the group's batch and head repeat, the layout row's head and query
block, the key head), issued while the SM's other program runs its softmax. With the
batch and head repeat as program ids of a 3-D grid, a broadcast layout's rows read as
query blocks, and the key head by a group size that Triton specialises as 1 without GQA,
the prologue is 160 instructions and no division (Triton 3.6, sm_90); the tile loop is
the same length (465 against 464 instructions) and spills nothing.

Prediction: `local(1)` 4-7% faster, `local(3)`, `butterfly` and random+global 2-4%, dense
and `causal` within 0.5%; outputs bit for bit the same.

Result (call 2, commit 7722714 against its parent's tree; log
``benchmarks/results/NVIDIA-H200-coords-ab-s52-call2.log``), best of two, before -> after,
ms, outputs bit for bit the same: `local(1)` 0.081 -> 0.077 (+4.8%; B=4, N=4096 0.079 ->
0.076, +4.8%), `local(3)` 0.145 -> 0.141 (+2.7%), `butterfly` 0.164 -> 0.161 (+2.1%),
random+global 0.158 -> 0.155 (+1.9%), dense 2.281 -> 2.275 (+0.3%; 4K +0.8%), `causal`
1.216 -> 1.216. As predicted; kept (NOTES v53).
"""

from benchmarks.sessions import ab

if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly",
                                    "local(1) | global(1) | random(2)", "dense", "causal")]
    ab.tree_ab_main(("old", "new"), {(1, 16, 16384): cases,
                                     (4, 16, 4096): [(64, "local(1)", 0.0),
                                                     (64, "dense", 0.0)]})
