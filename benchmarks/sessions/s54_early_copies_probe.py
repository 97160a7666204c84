"""Session 54: would a short row's first copies, issued earlier, shorten its forward?
Two probe variants of ``hopper``'s own D=64 forward, on `local(1)` only:

- ``k-early``: the row's first key block taken from its query block (``max(row - 1, 0)``,
  right for `local(1)` alone) instead of read from the key table at the entry's
  ``full_start``: the K/V copies wait for one dependent global load (the schedule entry),
  not two, as they would if the entry carried its run's first key;
- ``k-early+q-first``: also Q's copy issued as soon as its own mbarrier is set up, before
  the six K/V mbarriers are.

    PYTHONPATH=. python benchmarks/sessions/s54_early_copies_probe.py [--rounds 2]

Why. Call 1's stall samples: a `local(1)` program's warps stall on the entry's load (2.0%
of their samples), then on the key table's (0.5%), then wait for Q's copy (8.7%) and
after it for K's (2.1%); call 2 found 85-90% of a row start's idle cycles lost to the SM,
and call 3 that an L2 prefetch of the next program's Q does not shorten the wait: the
copies' latency is what it is, so only an earlier issue can help.

The variants are copies of this tree's ``sparseflash`` under /tmp with ``hopper.py``
edited (as ``s54_delay_probe.py``); outputs are checked against this tree's.

Prediction: ``k-early`` 0-2% on `local(1)`, with Q first 2-4%.

Result (call 4, log ``benchmarks/results/NVIDIA-H200-early-copies-s54-call4.log``; best of
three, against this tree, `local(1)`): ``k-early`` +0.6% (B=4, N=4K: +0.3%), with Q first
+0.3% (+0.1%). Even. In the SASS (Triton 3.6) ptxas places Q's copy after ~130
instructions in all three (``k-early`` moves it later, to 0x980 from 0x840; Q first to
0x880): the source order does not reach the machine code, so the probe could not move
Q's copy earlier, and one load fewer before the K/V copies alone is worth nothing
(NOTES v55).
"""

from benchmarks.sessions import ab

RUN = "        run_offset = _run_offset(FULL_IDX, full_start, n_full, LAYOUT_BLOCK, ROW_RUNS)\n"
RUN_LOCAL1 = "        run_offset = gl.maximum(q_block - 1, 0) * LAYOUT_BLOCK  # local(1) only\n"
INITS = '''        mbarrier.init(q_bar, count=1)
        for i in gl.static_range(STAGES):
            mbarrier.init(k_bar.index(i), count=1)
            mbarrier.init(v_bar.index(i), count=1)

        mbarrier.expect(q_bar, q_desc.block_type.nbytes)
        tma_load(q_desc, [(b * H + h) * N + q_start, 0], q_bar, q_smem)
'''
Q_FIRST = '''        mbarrier.init(q_bar, count=1)
        mbarrier.expect(q_bar, q_desc.block_type.nbytes)
        tma_load(q_desc, [(b * H + h) * N + q_start, 0], q_bar, q_smem)
        for i in gl.static_range(STAGES):
            mbarrier.init(k_bar.index(i), count=1)
            mbarrier.init(v_bar.index(i), count=1)
'''


def variant(name: str, q_first: bool) -> str:
    """A copy of this tree's package whose own forward takes `local(1)`'s first key from
    its query block, and with ``q_first`` issues Q's copy before the K/V mbarriers' set-up."""
    def edit(text):
        assert text.count(RUN) == 1 and text.count(INITS) == 1, \
            "hopper.py moved: update the probe"
        text = text.replace(RUN, RUN_LOCAL1)
        return text.replace(INITS, Q_FIRST) if q_first else text
    return ab.edited_tree(f"/tmp/s54-early-{name}", edit)


def variants():
    return {"main": ab.kernels_of(None),
            "k-early": ab.kernels_of(variant("k", False), "early_k"),
            "k-early+q-first": ab.kernels_of(variant("kq", True), "early_kq")}


if __name__ == "__main__":
    ab.forward_ab_main(variants, {(1, 16, 16384): [(64, "local(1)", 0.0)],
                                  (4, 16, 4096): [(64, "local(1)", 0.0)]})
