"""Session 54: O out of ``hopper``'s own D=64 forward by 16-byte stores from shared memory
instead of one TMA store that the program must wait for before it exits.

    PYTHONPATH=. python benchmarks/sessions/s54_store_probe.py [--rounds 2]

Why. Call 1's stall samples: a `local(1)` program's warps spend 3% of their samples at the
barrier after ``tma.store_wait(0)``, the wait for the TMA engine to read O's 16 KB from
shared memory before the program may exit (its shared memory may not be handed to the next
program earlier); call 2 found 85-90% of the idle cycles at a row's end lost to the SM. The
stores of sessions 16 and 53 that lost to TMA went from the MMA's registers, 4 bytes a
store (16 a thread); here O is staged in shared memory as now (``stmatrix``), read back 16
bytes a thread at a time and stored with full 128-byte lines a warp: 4 loads and 4 stores
a thread, after which the program may exit at once.

A probe: the variant is a copy of this tree's ``sparseflash`` under /tmp whose
``hopper.store_rows`` (shared with the ping-pong kernel, which these D=64 cases do not use)
takes that path in place of the TMA store, with the own D=64 kernel's 8 warps hard-wired.

Prediction: `local(1)` 1-3% faster, `local(3)` 0.5-1.5%, dense even; outputs bit for bit
the same.

Result (call 5, log ``benchmarks/results/NVIDIA-H200-staged-store-s54-call5.log``; best of
three, against this tree): `local(1)` -0.3%, `local(3)` -0.3%, `butterfly` -0.7%,
random+global -0.3%, dense +0.2%; B=4, N=4K `local(1)` -0.5%, `local(3)` -0.6%. Outputs
bit for bit the same. Refuted: the wait for the TMA store is not a cost that 16-byte
stores save (NOTES v55).
"""

from benchmarks.sessions import ab
TMA = '''            if TMA_STORE and q_start + BLOCK_M <= N:
                o_smem.store(out.to(dtype))
                fence_async_shared()
                tma_store(o_desc, [(b * H + h) * N + q_start, 0], o_smem)
                if WAIT_STORE:
                    tma.store_wait(0)
'''
STAGED = '''            if TMA_STORE:
                o_smem.store(out.to(dtype))
                io: gl.constexpr = gl.BlockedLayout([1, 8], [32 // (D // 8), D // 8], [8, 1],
                                                    [1, 0])
                tile = o_smem.load(io)
                rows = q_start + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, io))
                cols = gl.arange(0, D, layout=gl.SliceLayout(0, io))
                O += b.to(gl.int64) * stride_ob + h.to(gl.int64) * stride_oh
                gl.store(O + gl.expand_dims(rows, 1) * stride_on + gl.expand_dims(cols, 0), tile,
                         mask=gl.expand_dims(rows < N, 1) & gl.expand_dims(cols < D, 0))
'''


def variant() -> str:
    """A copy of this tree's package whose ``store_rows`` stages O's 16-byte stores."""
    def edit(text):
        assert text.count(TMA) == 1, "hopper.py moved: update the probe"
        return text.replace(TMA, STAGED)
    return ab.edited_tree("/tmp/s54-store-staged", edit)


def variants():
    return {"main": ab.kernels_of(None), "staged": ab.kernels_of(variant(), "staged")}


if __name__ == "__main__":
    cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly",
                                    "local(1) | global(1) | random(2)", "dense")]
    ab.forward_ab_main(variants, {(1, 16, 16384): cases, (4, 16, 4096): cases[:2]})
