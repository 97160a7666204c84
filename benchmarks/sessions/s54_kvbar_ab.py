"""Session 54: ``hopper``'s own forward with one mbarrier a K/V tile (K and V expected
together, waited for once, before the tile's scores) against the tree before (two: K's
waited before the scores, V's before the ``P V``).

    git apply benchmarks/sessions/s54_kvbar.patch   # the change (on commit 93d49dd's tree)
    PYTHONPATH=. python benchmarks/sessions/s54_kvbar_ab.py OLD_TREE [--rounds 2]

Why. Calls 2-5 of this session found a short row's boundary cycles nearly fully lost and
no latency there that the kernel's code could shorten; v54 found every instruction on a
warp's path costing ~8 cycles. With K and V on one barrier a trip expects and waits once
instead of twice, the last ``P V`` needs no wait, and the prologue sets up four mbarriers
instead of seven. The common path's instructions a warp (``s53_sass_segments.py``, Triton
3.6, broadcast run walk): prologue 223 -> 209, trip 457 -> 448, last ``P V`` 38 -> 31,
epilogue 209 -> 206; a 3-tile row 1,775 -> 1,733 (-2.4%), a dense one -2.0%. The cost: a
tile's scores wait for its V too, which left with its K (it matters only for the first
tiles of a row; later ones were issued two trips ahead).

Prediction: `local(1)` 1-2.5% faster, `local(3)` and `butterfly` 1-2%, dense 0.5-2%,
`causal` (partial blocks, at 4K on this kernel) 0-2%; outputs bit for bit the same.

Result (call 8, log ``benchmarks/results/NVIDIA-H200-kvbar-ab-s54-call8.log``; best of three,
old -> new): `local(1)` 0.076 -> 0.078 ms (-2.0%; B=4, N=4K -1.7%), `local(3)` -1.6%
(-1.8%), `butterfly` -0.0%, random+global +0.0%, dense 2.240 -> 2.281 (-1.8%), `causal`
at 4K -0.3%; slower in every run. Outputs bit for bit the same, and the 46 D=64 GPU tests
passed on it (log ``-checks-kvbar-s54-call8.log``). Refuted: 2% fewer instructions, 1.6-2%
more time. Not kept; the change is ``s54_kvbar.patch`` (NOTES v55).
"""

from benchmarks.sessions import ab

if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly",
                                    "local(1) | global(1) | random(2)", "dense")]
    ab.tree_ab_main(("old", "new"), {(1, 16, 16384): cases,
                                     (4, 16, 4096): [(64, p, 0.0) for p in
                                                     ("local(1)", "local(3)", "causal")]})
