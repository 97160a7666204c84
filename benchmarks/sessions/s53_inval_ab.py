"""Session 53: ``hopper``'s own forward without invalidating its mbarriers at the end
against the tree before (commit 97688da).

    PYTHONPATH=. python benchmarks/sessions/s53_inval_ab.py OLD_TREE [--rounds 2]

Why. NOTES v54 found short rows' loss in per-row issue work, not latency. The kernel
invalidated its seven mbarriers before its epilogue, which Gluon lowers with three
barriers of all 256 threads (the ping-pong forward and the fused backward never
invalidate theirs). Without them the D=64 variants are 8-16 instructions shorter (Triton
3.6) and have three thread barriers fewer a program.

Prediction: `local(1)` 0.5-1.5% faster, `local(3)` and `butterfly` 0.3-1%, dense even;
outputs bit for bit the same.

Result (call 6, log ``benchmarks/results/NVIDIA-H200-inval-ab-s53-call6.log``; best of
two, ms, old -> new): `local(1)` 0.076 -> 0.076 (+0.2%; B=4, N=4K +0.6%), `local(3)` 0.141
-> 0.140 (+0.4%), `butterfly` +0.5%, random+global +0.4%, dense 2.244 -> 2.251 (-0.3%);
outputs bit for bit the same, and the 46 D=64 GPU tests passed on it. Even, below the
prediction: not kept (NOTES v54; the change is commit dda544d).
"""

from benchmarks.sessions import ab

if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly",
                                    "local(1) | global(1) | random(2)", "dense")]
    ab.tree_ab_main(("old", "new"), {(1, 16, 16384): cases,
                                     (4, 16, 4096): [(64, "local(1)", 0.0)]})
