"""Session 54: ``hopper``'s own forward refilling a trip's free K/V buffers under the trip's
score product instead of after its softmax, against the tree before.

    PYTHONPATH=. python benchmarks/sessions/s54_refill_ab.py OLD_TREE [--rounds 2]

Why. Call 8 (``s54_kvbar_ab.py``) made each tile's scores wait for its V as well as its K
and lost 1.6-2% on short rows and dense alike: the copies land close to when the loop
needs them, even in a dense row's steady state, where a tile's copy is issued at the end
of the trip two before the one that reads it (~1.2 trips ahead). Tile j-1's buffers are
free as soon as its ``P V`` is done, at the top of trip j: issuing their refill right
after tile j's score product (asynchronous) and before waiting for it gives each copy a
softmax more of lead (~1,500-2,000 cycles) and puts the refill's issue work under the
product. Row starts likewise: tile ``STAGES - 1``'s copies go under tile 0's product.
Same instructions (1,600 on a broadcast run walk, Triton 3.6); no new spill, no
serialised MMA.

Prediction: dense 0.5-2% faster (its K waits were ~2% of its warps' samples in call 1),
short rows 0-1%; outputs bit for bit the same.

Result (call 10, log ``benchmarks/results/NVIDIA-H200-refill-ab-s54-call10.log``; best of
three, old -> new, ms): `local(1)` 0.076 -> 0.074 (+2.9%; B=4, N=4K +2.6%), `local(3)`
+1.0% (+1.7%), `butterfly` 0.162 -> 0.154 (+4.9%), random+global +3.2%, dense 2.217 ->
2.201 (+0.7%; 4K +1.2%), `causal` at 4K +1.3%; faster in every run, outputs bit for bit
the same, the 46 D=64 GPU tests passed on it first (log ``-checks-refill-s54-call10.log``).
Kept. Call 12 (``s54-call12.sh``, source samples on the new tree) found the loop's K/V
copy waits unchanged and the waits for the MMAs down (dense 20.1% -> 15.2% of the warps'
samples, `local(1)` 14.8% -> 11.1%): the gain is the refill's work running under the
product, not earlier copies (NOTES v55).
"""

from benchmarks.sessions import ab

if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly",
                                    "local(1) | global(1) | random(2)", "dense")]
    ab.tree_ab_main(("old", "new"), {(1, 16, 16384): cases,
                                     (4, 16, 4096): [(64, p, 0.0) for p in
                                                     ("local(1)", "local(3)", "causal",
                                                      "dense")]})
