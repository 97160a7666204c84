"""Session 39: a clock trace of the fused backward's consumer warp groups, to see where a
tile's time goes between its products (NOTES v41, next step 2).

    python benchmarks/sessions/s39_bwd_trace.py OUT_DIR

Runs on branch ``s39-bwd-trace`` (``hopper_fused.TRACING``; main has no trace points), or
on main at ``a986ab1`` with ``git apply benchmarks/sessions/s39_bwd_trace.patch`` (in a
copy of the tree: ``sessions/s41-call5.sh``). Written and compiled in session 39 (Triton
3.6's ptxas: 32 bytes of spills at D=64, none at D=128, no serialised wgmma); run in
session 40 (whose record was lost) and session 41 (call 5, an H200,
``benchmarks/results/NVIDIA-H200-bwd-trace-s41.log``, buffers in
``benchmarks/results/traces/s41-bwd/``; NOTES v42).

With ``hopper_fused.TRACING`` each consumer warp group of the first 8 programs writes the
SM's ``%clock64`` at fixed points of its first 32 tiles into an int64 buffer (passed where
the dropout seed goes; calls without dropout): 0 the tile's start, 1 its Q/dO slot ready,
2 S^T done, 3 dP^T done, 4 its rows of dS stored (and with ``DK_EARLY`` dK issued), 5 the
dS exchange passed, 6 dQ's product (and every other) done, 7 its dQ buffer free, 8 dQ
handed to the adder; and ``%globaltimer`` at 9 (the tile's start), to turn cycles into
time. B=1, H=16, N=16K, bf16; dense, ``sparse_transformer_strided`` and ``local(3)`` at
D=64 and 128. For each, the backward's time from CUDA graphs with and without the trace
points (what they cost), and the median cycles of each segment over the traced tiles past
each program's first, per warp group; the buffers go to OUT_DIR/trace-d<D>-<pattern>.pt.
"""

import os
import statistics
import sys

import torch
import triton

import sparseflash
from sparseflash.kernels import hopper_fused, launch

#: The trace buffer's shape, (programs, tiles, warp groups, events) int64, as the patch's
#: ``_stamp`` writes it.
PROGRAMS, TILES, WGS, EVENTS = 8, 32, 2, 16
#: Segments: (name, from event, to event); "next" is the next tile's event 0.
SEGMENTS = [("wait for the slot", 0, 1), ("S^T", 1, 2), ("dP^T (and dV issued)", 2, 3),
            ("dS computed and stored", 3, 4), ("dS exchange", 4, 5),
            ("dQ (and dK, dV) done", 5, 6), ("wait for the dQ buffer", 6, 7),
            ("dQ stored, handed", 7, 8), ("to the next tile", 8, "next"),
            ("whole tile", 0, "next")]
SEED_ARG = 19  # hopper_fused.backward's ``seed``


def traced_backward(run, trace):
    """``run()`` with every fused backward launch given ``trace`` for its seed."""
    original = hopper_fused.backward

    def with_trace(*args):
        args = list(args)
        args[SEED_ARG] = trace
        return original(*args)

    hopper_fused.backward = with_trace
    try:
        return run()
    finally:
        hopper_fused.backward = original


def summarize(trace: torch.Tensor) -> dict:
    """{segment: [median cycles of warp group 0, of warp group 1]} over the traced tiles
    that have a next tile (past each program's first), and "ns/cycle"."""
    t = trace.view(PROGRAMS, TILES, WGS, EVENTS).cpu()
    out = {name: [] for name, _, _ in SEGMENTS}
    ratios = []
    for wg in range(WGS):
        samples = {name: [] for name, _, _ in SEGMENTS}
        for p in range(PROGRAMS):
            for i in range(1, TILES - 1):
                here, after = t[p, i, wg], t[p, i + 1, wg]
                if here[0] == 0 or after[0] == 0:
                    continue
                for name, a, b in SEGMENTS:
                    end = after[0] if b == "next" else here[b]
                    samples[name].append(int(end - here[a]))
                cycles = int(after[0] - here[0])
                if cycles > 0:
                    ratios.append(int(after[9] - here[9]) / cycles)
        for name in out:
            out[name].append(statistics.median(samples[name]) if samples[name] else None)
    out["ns/cycle"] = statistics.median(ratios) if ratios else None
    return out


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    print("triton", triton.__version__, "torch", torch.__version__,
          torch.cuda.get_device_name(), flush=True)
    from benchmarks.sessions import ab
    for D in (64, 128):
        q, k, v, do = ab._inputs(1, 16, 16384, D)
        for pattern in ("dense", "sparse_transformer_strided", "local(3)"):
            layout = sparseflash.compile_layout(pattern, 16384, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            out, lse = launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, None,
                                      0.0)[:2]
            trace = torch.zeros(PROGRAMS * TILES * WGS * EVENTS, dtype=torch.int64,
                                device=q.device)

            def run():
                return launch.backward(do, q, k, v, out, lse, tables, meta, D ** -0.5,
                                       None, None, None, 0.0)

            times = {}
            for tracing in (False, True, False):
                hopper_fused.TRACING = tracing
                launch.clear_plans()
                step = (lambda: traced_backward(run, trace)) if tracing else run
                step()
                torch.cuda.synchronize()
                times.setdefault(tracing, []).append(ab._graph_bench(step))
            hopper_fused.TRACING = False
            launch.clear_plans()
            torch.save(trace.cpu(), os.path.join(out_dir, f"trace-d{D}-{pattern}.pt"))
            summary = summarize(trace)
            print(f"D={D} {pattern}: backward {min(times[False]):.3f} ms untraced, "
                  f"{min(times[True]):.3f} traced; ns/cycle {summary.pop('ns/cycle')}",
                  flush=True)
            for name, medians in summary.items():
                text = " / ".join("-" if m is None else f"{m:7.0f}" for m in medians)
                print(f"  {name:26s} cycles (warp group 0 / 1): {text}", flush=True)


if __name__ == "__main__":
    main()
