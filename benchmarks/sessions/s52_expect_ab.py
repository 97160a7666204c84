"""Session 52: the K and V copies' two expectations issued before the two copies
(``hopper._issue_kv_at``) against expect, copy, expect, copy (the tree of call 2).

    PYTHONPATH=. python benchmarks/sessions/s52_expect_ab.py OLD_TREE [--rounds 2]

Why. Gluon puts a barrier of the partition's eight warps between an mbarrier's
expectation and a copy that completes on it; in ``hopper``'s own D=64 forward each tile's
refill took two (four barriers a trip of the tile loop), and the prologue five before its
third copy. With both expectations first, one barrier covers both copies: three a trip,
four in the prologue (ptxas of Triton 3.6, sm_90; the loop 462 instructions against
465). The ping-pong forward's loader (one warp) issues its copies through the same
function.

Prediction: a barrier a tile is a few tens of cycles of a ~3,650-cycle trip when the
warps arrive together, more where the softmax leaves them apart: D=64 dense and sparse
0-2% faster, the D=128 (ping-pong) rows within 0.5%; outputs bit for bit the same.

Result (call 3, on commit f69827b's tree against 7722714's; log
``benchmarks/results/NVIDIA-H200-expect-ab-s52-call3.log``), best of two, before ->
expectations first, ms, outputs bit for bit the same: D=64 `local(1)` 0.077 -> 0.077
(-0.2%), `local(3)` 0.142 -> 0.141 (+0.7%), `butterfly` 0.161 -> 0.162 (-0.7%), dense
2.241 -> 2.228 (+0.6%), `causal` 1.205 -> 1.231 (-2.1%, slower in all four runs: 1.231-1.279
against 1.205-1.224); D=128 `local(3)` +0.4%, dense +0.7%, `causal` +1.0% (its rounds
spread 1.699-1.911). Not kept: no gain on the short rows it was for, and D=64 `causal`
slower (its partial-tile loop's code, not examined). The tree went back to call 2's
``_issue_kv_at`` (NOTES v53).
"""

from benchmarks.sessions import ab

if __name__ == "__main__":
    d64 = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly", "dense", "causal")]
    d128 = [(128, p, 0.0) for p in ("local(3)", "dense", "causal")]
    ab.tree_ab_main(("expect-copy-expect-copy", "expects-first"), {(1, 16, 16384): d64 + d128})
