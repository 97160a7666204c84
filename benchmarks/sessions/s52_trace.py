"""Session 52: a clock trace of ``hopper``'s own D=64 forward, to find where a short row's
fixed cost goes (NOTES v53).

    git checkout 7722714~1 -- sparseflash   # the tree the patch applies to
    git apply benchmarks/sessions/s52_trace.patch
    PYTHONPATH=. python benchmarks/sessions/s52_trace.py OUT_DIR

Why. The D=64 forward keeps 67% of its dense TFLOP/s on ``local(1)`` (three key tiles a
row) and 83% on ``local(3)`` (seven): about 1.5 tiles' time of fixed cost a program
(NOTES v52), and v52's skew probe found it in each program's own serial path, not in two
programs of an SM waiting together. Which part of that path: the schedule's dependent
table reads before the first copies, Q's and the first tiles' copies, the epilogue's
store, or the turnover from one program to the next on an SM?

What. With ``hopper.TRACING`` (the patch) each program writes the SM's ``%clock64`` at
fixed points into an int64 buffer passed where the key padding's walk limits go (no
padding here): 0 start; 1 Q's copy issued (after the schedule entry's row is read); 2 the
first tiles' copies issued (after the row's first table entry is read); 3 Q landed; 12
the first scores done (K0 landed, one MMA); 4 the first softmax done; 13 the full loop
done; 5 the last ``P V`` done; 6 the output normalised and the coordinates read again;
7 O and the LSE stored (the O store's read of shared memory waited for). Also 8 and 9:
``%globaltimer`` at start and end (ns), 10 the SM, 11 the row's tiles. B=1, H=16,
N=16,384, bf16; the README's short-row patterns and dense. Outputs are compared with the
untraced kernel's; both are timed from CUDA graphs (the stamps' own cost).

Prints, per pattern: the median cycles of each segment, the cycles a steady tile takes,
and from the global timer the mean programs resident per SM and the gap from a program's
end to the next start in its SM. Saves the raw traces to OUT_DIR/trace-<pattern>.pt.

Result (call 1, on commit 7722714's parent with the patch; log
``benchmarks/results/NVIDIA-H200-trace-s52-call1.log``; the traces were not kept), median
cycles, ~0.6 ns a cycle: a `local(1)` program 15,962 (start -> Q's copy issued 1,904,
-> the first tiles' copies 400, -> Q landed 1,260, -> first scores 1,055, -> first softmax
1,904, two later trips 6,412, -> last `P V` 573, -> normalised 849, -> stored 1,131);
`local(3)` 30,268; dense 473,498 (3,653 a trip). The ~1,800-1,900 cycles before Q's copy
are the same on every pattern: 301 instructions there, four integer divisions among
them, issued beside the SM's other program's softmax. That led to
``s52_coords_ab.py`` (NOTES v53).
"""

import os
import statistics
import sys

import torch
import triton

import sparseflash
from sparseflash.kernels import hopper, launch

PATTERNS = ["local(1)", "local(3)", "butterfly", "local(1) | global(1) | random(2)",
            "dense"]
EVENTS = 16
SEGMENTS = [("start -> Q issued", 0, 1), ("-> K0,K1 issued", 1, 2), ("-> Q landed", 2, 3),
            ("-> S0 done", 3, 12), ("-> softmax0 done", 12, 4), ("full loop", 4, 13),
            ("-> last PV done", 13, 5), ("-> normalised", 5, 6), ("-> stored", 6, 7),
            ("program", 0, 7)]


def run_forward(q, k, v, layout, trace=None):
    """launch.forward, with the trace buffer in place of the walk limits when given."""
    tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
    original = hopper.forward

    def with_trace(*args):
        args = list(args)
        args[13] = trace  # kv_limits: never read without key padding, the stamps' buffer
        return original(*args)

    if trace is not None:
        hopper.forward = with_trace
    try:
        return launch.forward(q, k, v, tables, meta, q.shape[-1] ** -0.5, None, None, None,
                              0.0)
    finally:
        hopper.forward = original


def graph_ms(fn):
    """Median ms of ``fn`` replayed from a CUDA graph (the tables' timer)."""
    fn()
    return triton.testing.do_bench_cudagraph(fn, rep=100)


def summarize(t: torch.Tensor, pattern: str) -> None:
    used = t[:, 8] != 0
    t = t[used].double()
    tiles = t[:, 11]
    print(f"\n== {pattern}: {t.shape[0]} programs, tiles a row median "
          f"{statistics.median(tiles.tolist()):.0f} (min {tiles.min():.0f}, max "
          f"{tiles.max():.0f})")
    for name, a, b in SEGMENTS:
        d = (t[:, b] - t[:, a]).tolist()
        print(f"  {name:20s} median {statistics.median(d):8.0f} cycles  "
              f"p10 {sorted(d)[len(d) // 10]:8.0f}  p90 {sorted(d)[9 * len(d) // 10]:8.0f}")
    # The loop runs trips 1 .. tiles - 1 (tile 0's scores come before it). Call 1's log
    # divided by tiles - 2, one trip too few: its "steady tile" figures are too high.
    trips = (tiles - 1).clamp(min=1)
    steady = ((t[:, 13] - t[:, 4]) / trips)[tiles >= 2].tolist()
    if steady:
        print("  steady trip (full loop / (tiles - 1)) median "
              f"{statistics.median(steady):.0f} cycles")
    ns = ((t[:, 9] - t[:, 8]) / (t[:, 7] - t[:, 0]).clamp(min=1)).tolist()
    print(f"  ns a cycle (global timer over clock) median {statistics.median(ns):.3f}")
    # Residency from the global timer: the programs' summed time over (SMs x span).
    start, end, sm = t[:, 8], t[:, 9], t[:, 10].long()
    span = (end.max() - start.min()).item()
    sms = int(sm.max().item()) + 1
    print(f"  kernel span {span / 1e3:.1f} us on {sms} SMs; programs resident a SM on "
          f"average {(end - start).sum().item() / (span * sms):.2f}")
    gaps = []
    for s in range(sms):
        mine = (sm == s).nonzero().flatten()
        starts = start[mine].sort().values
        for i in mine.tolist():
            later = starts[starts >= end[i]]
            if later.numel():
                gaps.append((later[0] - end[i]).item())
    if gaps:
        gaps.sort()
        print(f"  end -> next start on its SM: median {statistics.median(gaps):.0f} ns, p10 "
              f"{gaps[len(gaps) // 10]:.0f}, p90 {gaps[9 * len(gaps) // 10]:.0f}")
    steps = (t[:, 9] - t[:, 8])
    print(f"  program wall median {statistics.median(steps.tolist()):.0f} ns")


def main() -> None:
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    B, H, N, D = 1, 16, 16384, 64
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    for pattern in PATTERNS:
        layout = sparseflash.compile_layout(pattern, N, block=128, num_heads=H,
                                            device="cuda")
        hopper.TRACING = False
        launch.clear_plans()
        o_ref, lse_ref = run_forward(q, k, v, layout)
        plain = graph_ms(lambda: run_forward(q, k, v, layout))
        hopper.TRACING = True
        launch.clear_plans()
        trace = torch.zeros(8192, EVENTS, dtype=torch.int64, device="cuda")
        traced = graph_ms(lambda: run_forward(q, k, v, layout, trace))
        trace.zero_()
        o, lse = run_forward(q, k, v, layout, trace)
        torch.cuda.synchronize()
        same = torch.equal(o, o_ref) and torch.equal(lse, lse_ref)
        print(f"\n{pattern}: untraced {plain:.4f} ms, traced {traced:.4f} ms, outputs "
              f"{'bit for bit the same' if same else 'DIFFER'}")
        torch.save(trace.cpu(), os.path.join(out_dir, f"trace-{pattern.replace(' ', '')}.pt"))
        summarize(trace.cpu(), pattern)
    hopper.TRACING = False
    launch.clear_plans()


if __name__ == "__main__":
    main()
