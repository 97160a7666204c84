"""Session 33: a clock trace of the D=128 ping-pong forward's work items, to find the
~2.2 us an item costs beyond its tiles (NOTES v35).

    python benchmarks/sessions/s33_trace.py OUT_DIR [--both]

Runs on the traced tree (calls 3-4 ran it): ``git checkout 2b1026e && git apply
benchmarks/sessions/s33_trace.patch``.

With ``hopper_pingpong.TRACING`` each warp group and the loader of the first 8 programs
write the SM's ``%clock64`` at fixed points of their first 24 items into an int64 buffer
(passed where the dropout seed goes): warp groups at the item's start, its first round
issued, its first softmax done, the end of each later round, the last round's turn, the
last ``P V`` done, the epilogue done (and ``%globaltimer`` at the start and the epilogue,
to turn cycles into time); the loader when it has the item, its walk read, its first
tile, each Q, each later tile issued. Session-32 kernel otherwise (``HANDED_WALK`` and
``STORE_UNDER_NEXT`` off; with ``--both``, on). B=1, H=16, N=16K, bf16, D=128:
``local(1)``, ``local(3)``, ``local(7)`` and dense; the trace buffers go to
OUT_DIR/trace-<pattern>.pt, a summary (median over the traced items past each program's
first) to stdout.
"""

import os
import statistics
import sys

import torch
import triton

import sparseflash
from sparseflash.kernels import hopper, hopper_pingpong, launch

PROGRAMS, ITEMS, ROLES, EVENTS = 8, 24, 3, 64


def traced_forward(q, k, v, layout, trace):
    tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
    original = hopper.forward

    def with_trace(*args):
        args = list(args)
        args[15] = trace  # SEED: the trace buffer (no dropout here)
        return original(*args)

    hopper.forward = with_trace
    try:
        return launch.forward(q, k, v, tables, meta, q.shape[-1] ** -0.5, None, None, 0, 0.0)
    finally:
        hopper.forward = original


def summarize(trace, pattern):
    t = trace.view(PROGRAMS, ITEMS, ROLES, EVENTS).cpu()
    rows = {name: [] for name in ("item", "start->r0 issued", "r0 wait+softmax",
                                  "per later round", "->last turn", "last PV",
                                  "epilogue", "->next item", "ns/cycle")}
    loader = {name: [] for name in ("claim->walk read", "walk->tile0 issued",
                                    "tile0->Q0 issued", "consumer start - Q1 issued")}
    for p in range(PROGRAMS):
        for i in range(1, ITEMS - 1):
            for wg in range(2):
                e, nxt = t[p, i, wg], t[p, i + 1, wg]
                n = int(e[63])
                if n < 2 or e[0] == 0 or nxt[0] == 0:
                    continue
                last_round = e[2 + min(n - 1, 39)]
                rows["item"].append(int(nxt[0] - e[0]))
                rows["start->r0 issued"].append(int(e[1] - e[0]))
                rows["r0 wait+softmax"].append(int(e[2] - e[1]))
                rows["per later round"].append(int(last_round - e[2]) / (n - 1))
                rows["->last turn"].append(int(e[42] - last_round))
                rows["last PV"].append(int(e[43] - e[42]))
                rows["epilogue"].append(int(e[44] - e[43]))
                rows["->next item"].append(int(nxt[0] - e[44]))
                cycles = int(e[44] - e[0])
                if cycles > 0:
                    rows["ns/cycle"].append(int(e[61] - e[60]) / cycles)
            ld, c0 = t[p, i, 2], t[p, i, 0]
            if ld[0] and ld[1]:
                loader["claim->walk read"].append(int(ld[1] - ld[0]))
                loader["walk->tile0 issued"].append(int(ld[2] - ld[1]))
                loader["tile0->Q0 issued"].append(int(ld[3] - ld[2]))
                loader["consumer start - Q1 issued"].append(int(c0[0] - ld[4]))
    print(f"{pattern}: medians over {len(rows['item'])} (item, warp group) pairs, cycles")
    for name, values in {**rows, **loader}.items():
        if values:
            digits = 3 if name == "ns/cycle" else 0
            ordered = sorted(values)
            print(f"  {name:28s} {statistics.median(values):9.{digits}f}   (p10 "
                  f"{ordered[len(values) // 10]:.{digits}f}, p90 "
                  f"{ordered[len(values) * 9 // 10]:.{digits}f})", flush=True)


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    both = "--both" in sys.argv  # (call 4) the walk handed over, the store under the next
    hopper_pingpong.HANDED_WALK = hopper_pingpong.STORE_UNDER_NEXT = both
    print("HANDED_WALK and STORE_UNDER_NEXT", both)
    B, H, N, D = 1, 16, 16384, 128
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16, generator=gen)
               for _ in range(3))
    for pattern in ("local(1)", "local(3)", "local(7)", "dense"):
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        trace = torch.zeros(PROGRAMS * ITEMS * ROLES * EVENTS, dtype=torch.int64,
                            device="cuda")
        # (Untraced: with TRACING the kernel writes where its SEED pointer points.)
        hopper_pingpong.TRACING = False
        launch.clear_plans()
        ref = launch.forward(q, k, v, layout.kernel_tables(), launch.LayoutMeta.of(layout),
                             D ** -0.5, None, None, 0, 0.0)
        for tracing in (False, True):
            hopper_pingpong.TRACING = tracing
            launch.clear_plans()
            run = lambda: traced_forward(q, k, v, layout, trace)  # noqa: E731
            out = run()
            same = all(torch.equal(a, b) for a, b in zip(out, ref))
            ms = triton.testing.do_bench(run, warmup=25, rep=100)
            print(f"{pattern:9s} tracing={tracing}: {ms:.3f} ms, outputs "
                  f"{'bitwise equal' if same else 'DIFFER'}", flush=True)
        trace.zero_()
        run()
        torch.cuda.synchronize()
        torch.save(trace.cpu(), os.path.join(out_dir, f"trace-{pattern}.pt"))
        summarize(trace, pattern)
    hopper_pingpong.TRACING = False


if __name__ == "__main__":
    main()
