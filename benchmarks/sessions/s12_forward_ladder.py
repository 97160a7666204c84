"""Session 12: what makes sparseflash's forward slower than a minimal one on short rows?

    python benchmarks/sessions/s12_forward_ladder.py [--seq-len 16384]

Call 1 (``s12_persistent_probe.py``) found a minimal forward (offsets from the program id)
at 364-378 TFLOP/s on ``local(3)`` at D=64 where sparseflash's autotuned forward ran at
305, and 403 against 344 at D=128; on dense rows the two are within 5%. So the cost is
per program, not per tile. This ladder starts from the minimal kernel and adds
sparseflash's per-program features one at a time (each rung keeps the ones before):

1. ``sched``: the row and its full-list bounds read from the schedule entry
   (``kv_schedule``), the run's first key block from the list (``FULL_IDX[full_start]``,
   a load that waits for the entry's: what ``consecutive_run`` does);
2. ``sched+run-in-entry``: the same, but the run's first key offset precomputed per entry
   (read in parallel with the entry): the candidate fix for rung 1;
3. ``+empty-loops``: the table walk and the partial-block walk after the run loop, empty
   here, as in sparseflash;
4. ``+epilogue``: the -inf guard, rows without keys, the LSE store and the split-row
   branch; ``+epilogue+row-masks`` adds the query-row bound on the Q load and the stores.

Every output is checked against SDPA with the block mask, on ``local(3)`` and
``butterfly`` (table-walked rows: rungs 1-2 then walk the table loop), D = 64 and 128.
"""

import argparse
import sys

import torch
import triton
import triton.language as tl

ROWS = 128  # the layout block (and BLOCK_M)


@triton.jit
def _tile(acc, l_i, m_i, q, K, V, base, start_n, offs_d, qk_scale,
          BLOCK_N: tl.constexpr, D: tl.constexpr, M_SAFE: tl.constexpr):
    offs_n = start_n + tl.arange(0, BLOCK_N)
    k = tl.load(K + base + offs_n[None, :] * D + offs_d[:, None])
    v = tl.load(V + base + offs_n[:, None] * D + offs_d[None, :])
    s = tl.dot(q, k)
    m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
    if M_SAFE:
        m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
    else:
        m_use = m_new
    p = tl.math.exp2(s * qk_scale - m_use[:, None])
    alpha = tl.math.exp2(m_i - m_use)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
    return acc, l_i, m_new


@triton.jit
def _ladder(Q, K, V, O, LSE, FULL_IDX, PART_IDX, SCHED, RUNS, N, qk_scale,
            BLOCK_N: tl.constexpr, D: tl.constexpr, SCHED_ROW: tl.constexpr,
            RUN_IN_ENTRY: tl.constexpr, EMPTY_LOOPS: tl.constexpr, EPILOGUE: tl.constexpr,
            ROW_MASKS: tl.constexpr, BLOCK: tl.constexpr):
    SUB: tl.constexpr = BLOCK // BLOCK_N
    pid = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * N * D
    offs_d = tl.arange(0, D)
    if SCHED_ROW:
        entry = SCHED + pid * 6
        row = tl.load(entry)
        full_start = tl.load(entry + 1)
        full_end = tl.load(entry + 2)
        if RUN_IN_ENTRY:
            run = tl.load(RUNS + pid)
        else:
            first = tl.load(FULL_IDX + full_start, mask=full_end > full_start, other=0)
            last = tl.load(FULL_IDX + full_end - 1, mask=full_end > full_start, other=-1)
            run = tl.where(last - first == full_end - 1 - full_start, first * BLOCK, -1)
        run_tiles = tl.where(run >= 0, full_end - full_start, 0) * SUB
    else:  # local(3) from the program id alone
        row = pid
        lo = tl.maximum(row - 3, 0)
        run = lo * BLOCK
        full_start = lo
        full_end = tl.minimum(row + 4, N // BLOCK)
        run_tiles = (full_end - full_start) * SUB
    offs_m = row * BLOCK + tl.arange(0, BLOCK)
    m_ok = offs_m < tl.where(ROW_MASKS, N, 1 << 30)
    q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :], mask=m_ok[:, None], other=0.0)
    m_i = tl.full((BLOCK,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK,), tl.float32)
    acc = tl.zeros((BLOCK, D), tl.float32)
    for t in range(0, run_tiles):
        acc, l_i, m_i = _tile(acc, l_i, m_i, q, K, V, base, run + t * BLOCK_N, offs_d,
                              qk_scale, BLOCK_N, D, EPILOGUE)
    if EMPTY_LOOPS or SCHED_ROW:
        for t in range(full_start * SUB + run_tiles, full_end * SUB):
            kb = tl.load(FULL_IDX + t // SUB)
            acc, l_i, m_i = _tile(acc, l_i, m_i, q, K, V, base,
                                  kb * BLOCK + (t % SUB) * BLOCK_N, offs_d, qk_scale,
                                  BLOCK_N, D, EPILOGUE)
    if EMPTY_LOOPS:  # the partial list is empty for these layouts (walked all the same)
        for t in range(tl.load(SCHED + pid * 6 + 3) * SUB, tl.load(SCHED + pid * 6 + 4) * SUB):
            kb = tl.load(PART_IDX + t // SUB)
            acc, l_i, m_i = _tile(acc, l_i, m_i, q, K, V, base,
                                  kb * BLOCK + (t % SUB) * BLOCK_N, offs_d, qk_scale,
                                  BLOCK_N, D, EPILOGUE)
    if EPILOGUE:
        has_keys = l_i > 0.0
        out = acc / tl.where(has_keys, l_i, 1.0)[:, None]
        lse = tl.where(has_keys, m_i + tl.math.log2(tl.where(has_keys, l_i, 1.0)),
                       float("-inf"))
        if tl.load(SCHED + pid * 6 + 5) < 0:
            tl.store(O + base + offs_m[:, None] * D + offs_d[None, :], out.to(O.dtype.element_ty),
                     mask=m_ok[:, None])
            tl.store(LSE + bh.to(tl.int64) * N + offs_m, lse, mask=m_ok)
        else:  # (no split rows in these layouts; the branch is what costs, if anything)
            tl.store(LSE + bh.to(tl.int64) * N + offs_m, lse + 1.0)
    else:
        tl.store(O + base + offs_m[:, None] * D + offs_d[None, :],
                 (acc / l_i[:, None]).to(O.dtype.element_ty))


def _rung(**on):
    """The ladder's switches: those named on, the rest off."""
    flags = dict(ROW_MASKS=False, SCHED_ROW=False, RUN_IN_ENTRY=False, EMPTY_LOOPS=False,
                 EPILOGUE=False)
    return {**flags, **on}


RUNGS = {
    "minimal": _rung(),
    "sched": _rung(SCHED_ROW=True),
    "sched+run-in-entry": _rung(SCHED_ROW=True, RUN_IN_ENTRY=True),
    "+empty-loops": _rung(SCHED_ROW=True, EMPTY_LOOPS=True),
    "+epilogue": _rung(SCHED_ROW=True, EMPTY_LOOPS=True, EPILOGUE=True),
    "+epilogue, run-in-entry": _rung(SCHED_ROW=True, RUN_IN_ENTRY=True, EMPTY_LOOPS=True,
                                     EPILOGUE=True),
    "+epilogue+row-masks": _rung(SCHED_ROW=True, EMPTY_LOOPS=True, EPILOGUE=True,
                                 ROW_MASKS=True),
}
CONFIGS = {64: [(64, 4, 3), (64, 8, 3)], 128: [(64, 8, 3)]}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--heads", type=int, default=16)
    args = p.parse_args()
    import sparseflash
    from sparseflash.kernels import launch

    N, H = args.seq_len, args.heads
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    if device == "cuda":
        print("triton", triton.__version__, "torch", torch.__version__,
              torch.cuda.get_device_name())
    failures = 0
    for d in (64, 128):
        q, k, v = (torch.randn(1, H, N, d, device=device, dtype=dtype) for _ in range(3))
        scale = d ** -0.5
        for pattern in ("local(3)", "butterfly"):
            layout = sparseflash.compile_layout(pattern, N, block=ROWS, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            full_idx, part_idx, sched = tables[1], tables[3], tables[10]
            assert meta.kv_slots == 0 and tables[3].numel() == 0, "probe assumes no split/partial"
            # Each entry's run start, as the candidate would precompute it on the host.
            fs, fe = sched[:, 1].long(), sched[:, 2].long()
            first, last = full_idx[fs].long(), full_idx[fe - 1].long()
            runs = torch.where(last - first == fe - 1 - fs, first * ROWS, -1).to(torch.int32)
            # The probe's grid follows the schedule's order (entry = program), as sparseflash.
            mask = layout.to_dense()[0]  # (N, N) bool, one layout head
            ref = torch.nn.functional.scaled_dot_product_attention(
                q.float(), k.float(), v.float(), attn_mask=mask)
            flops = 4 * H * N * N * d * layout.density
            o = torch.empty_like(q)
            lse = torch.empty(1, H, N, device=device, dtype=torch.float32)
            runs_list = [("sparseflash forward", lambda: o.copy_(launch.forward(
                q, k, v, tables, meta, scale, None, None, 0, 0.0)[0]))]
            for name, flags in RUNGS.items():
                if pattern != "local(3)" and not flags["SCHED_ROW"]:
                    continue
                for bn, w, st in CONFIGS[d]:
                    grid = (N // ROWS, H)
                    runs_list.append((f"{name} n{bn} w{w} s{st}",
                                      lambda flags=flags, bn=bn, w=w, st=st: _ladder[grid](
                                          q, k, v, o, lse, full_idx, part_idx, sched, runs, N,
                                          scale * 1.4426950408889634, BLOCK_N=bn, D=d,
                                          BLOCK=ROWS, num_warps=w, num_stages=st, **flags)))
            print(f"D={d} {pattern} (density {layout.density:.4f}), N={N}, H={H}, {dtype}, fwd:")
            for label, run in runs_list:
                o.fill_(float("nan"))
                try:
                    run()
                    err = (o.float() - ref).abs().max().item()
                    ok = err < (2e-2 if dtype == torch.bfloat16 else 1e-4)
                    failures += not ok
                    ms = (triton.testing.do_bench(run, warmup=25, rep=200)
                          if device == "cuda" else float("nan"))
                except Exception as e:  # a probe: report and go on
                    print(f"  {label:36s} FAILED {type(e).__name__}: {str(e)[:200]}")
                    failures += 1
                    continue
                print(f"  {label:36s} {ms:8.4f} ms {flops / ms / 1e9:7.1f} TFLOP/s  "
                      f"max|err| {err:.2e} {'ok' if ok else 'WRONG'}")
                sys.stdout.flush()
    print("failures:", failures)


if __name__ == "__main__":
    main()
