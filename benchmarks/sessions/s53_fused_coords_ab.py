"""Session 53: the fused backward's column coordinates without integer divisions
(``hopper_fused._column`` and ``_store_coords`` through ``hopper._own_item`` and
``_own_coords``, on a (column programs, kv head repeat, batch) grid) against the tree
before.

    PYTHONPATH=. python benchmarks/sessions/s53_fused_coords_ab.py OLD_TREE [--rounds 2]

Why. The fused backward runs one program an SM, so nothing hides a program's start, and
each of its partitions derived the column's coordinates with ``hopper._coords_at``: a
division of the group by the kv heads' repeat and one of the schedule row by the key
blocks, in the default partition before the fork, in each consumer warp group at its
start and again at its store (NOTES v53's next step 2). Session 52 took the same
divisions out of the D=64 forward's prologue (2-5% on short rows, two programs an SM).

Prediction: D=64 and D=128 short columns (``local(1)``, ``local(3)``, ``butterfly``,
random+global) 0.5-2% faster backwards, dense even; dK and dV bit for bit the same, dQ
within summation order.

Result (call 4, log ``benchmarks/results/NVIDIA-H200-fused-coords-ab-s53-call4.log``;
best of two, backward from CUDA graphs, old -> new, ms): D=64 ``local(1)`` 0.262 -> 0.261
(+0.3%), ``local(3)`` 0.425 -> 0.425, ``butterfly`` +0.1%, random+global +0.2%, dense 5.628
-> 5.677 (-0.9%); D=128 ``local(1)`` -0.4%, ``local(3)`` +0.6%, ``butterfly`` -0.2%; B=4,
N=4K +0.2%. dK and dV bit for bit the same. Refuted; not kept (NOTES v54; the change is
``sessions/s53_fused_coords.patch``, which applies to commit 265e3f1).
"""

from benchmarks.sessions import ab

if __name__ == "__main__":
    short = ("local(1)", "local(3)", "butterfly", "local(1) | global(1) | random(2)")
    cases = ([(64, p, 0.0) for p in short + ("dense",)]
             + [(128, p, 0.0) for p in ("local(1)", "local(3)", "butterfly")])
    ab.tree_ab_main(("old", "new"), {(1, 16, 16384): cases,
                                     (4, 16, 4096): [(64, "local(1)", 0.0),
                                                     (64, "butterfly", 0.0)]},
                    backward=True)
