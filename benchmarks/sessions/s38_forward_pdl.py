"""Session 38: the forward's merge of split rows started by programmatic dependent launch
(``hopper.PDL_MERGE``), and a timeline of the kernels of a fwd+bwd with PDL and without.

    git checkout s38-forward-pdl     # the branch that has hopper.PDL_MERGE
    python benchmarks/sessions/s38_forward_pdl.py [--rounds 2] [--stress 60] [--trace DIR]

1. Race check: with PDL the merge's programs may start while the forward still runs, so
   a wait placed too late shows as a merged row that read a chunk before it was written.
   The forward with PDL runs ``--stress`` times back to back (eager, then replayed from
   one CUDA graph) on layouts with split rows through each Gluon forward (D=64's serial
   kernel, the ping-pong kernel at D=128, the ping-pong kernel with dropout at both),
   every O and LSE bit for bit the PDL-off run's (the merge sums the chunks in one order).
2. A/B: the forward alone, replayed from CUDA graphs (``ab._graph_bench``), PDL on and
   off in the order A B B A per round, on layouts with split rows at B=1, H=16, N=16K.
3. Timeline (``--trace``): the kernels of one eager fwd+bwd (the host queues every
   launch behind a ``torch.cuda._sleep`` first, so that the gaps are the GPU's own), with
   every PDL on and with every PDL off: each kernel's start, length and the gap from the
   end of the one before (negative where PDL let it start early). The chrome traces go to
   DIR.

Prediction: the merge is a few microseconds of work launched after a forward of 0.1-1
ms; PDL hides its launch and ramp, 2-5 us, so 0.5-2% of a random+global forward at
D=64, under 1% at D=128. The timeline shows the gaps PDL closes in the backward: each
3-5 us without it, near zero or negative with it.

Result (call 1, an H200, ``benchmarks/results/NVIDIA-H200-forward-pdl-s38.log``; NOTES
v40): no race in 4 x 120 forwards; the forward with PDL 0.9-2.9% slower from graphs (D=64
random+global 0.1594-0.1602 ms against 0.1580-0.1587); in the timeline (one trace each,
``benchmarks/results/traces/NVIDIA-H200-s38-d64-random-global-pdl-*.json``) the eager
gaps between kernels are 1.1-1.6 us without PDL, the merge ends 0.8 us sooner after the
forward with it, and the backward's PDL boundaries end 0.9-4.2 us sooner each (5 us of
a 465 us backward). Not kept: the merge stays on branch ``s38-forward-pdl``. The
timeline stopped after its first layout (the check for split rows, meant for the race
check and the A/B, also ran for ``local(3)``); it no longer asks there, and the spin
kernel the log lists first (50 ms, before the forward) is now left out.
"""

import argparse
import json
import os

import torch
import triton

import sparseflash
from benchmarks.sessions import ab
from sparseflash.kernels import hopper, hopper_fused, launch

# (D, pattern, dropout p) of the A/B: layouts whose global rows are split.
AB_CASES = [(64, "local(1) | global(1) | random(2)", 0.0),
            (128, "local(1) | global(1) | random(2)", 0.0),
            (64, "bigbird", 0.0), (128, "bigbird", 0.0),
            (64, "local(1) | global(1) | random(2)", 0.1)]
# (D, pattern, B, N, dropout p) of the race check.
STRESS_CASES = [(64, "local(1) | global(1) | random(2)", 1, 16384, 0.0),
                (128, "local(1) | global(1) | random(2)", 1, 16384, 0.0),
                (64, "local(2) | global(1)", 4, 2048, 0.1),
                (128, "local(2) | global(1)", 2, 4096, 0.1)]


def _set_pdl(on: bool) -> None:
    hopper.PDL_MERGE = on
    hopper_fused.PDL = on
    launch.clear_plans()


def _case(D, pattern, B, N, p_drop, H=16, split=True):
    gen = torch.Generator(device="cuda").manual_seed(1)
    q, k, v, do = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16,
                               generator=gen) for _ in range(4))
    layout = sparseflash.compile_layout(pattern, N, block=128, device="cuda")
    tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
    assert meta.kv_slots > 0 or not split, f"{pattern} at N={N} splits no row"
    seed = torch.tensor([77], dtype=torch.int64, device="cuda") if p_drop else None

    def forward():
        return launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, seed, p_drop)[:2]

    return layout, forward, (q, k, v, do, tables, meta, seed)


def stress(repeats: int) -> bool:
    ok_all = True
    for D, pattern, B, N, p_drop in STRESS_CASES:
        _, forward, _ = _case(D, pattern, B, N, p_drop)
        _set_pdl(False)
        ref = forward()
        _set_pdl(True)
        differ = torch.zeros((), dtype=torch.int64, device="cuda")

        def tally(outs):
            differ.add_((outs[0] != ref[0]).any().long() + (outs[1] != ref[1]).any().long())

        ab.eager_then_graph(forward, tally, repeats)
        n = differ.item()
        ok_all &= n == 0
        print(f"stress D={D} {pattern} B={B} N={N} p={p_drop}: {2 * repeats} forwards, O/LSE "
              f"differ in {n} -> {'ok' if n == 0 else 'RACE'}", flush=True)
    return ok_all


def forward_ab(rounds: int) -> None:
    for D, pattern, p_drop in AB_CASES:
        layout, forward, _ = _case(D, pattern, 1, 16384, p_drop)
        flops = 4 * 16 * 16384 ** 2 * D * layout.density
        times = {"off": [], "pdl": []}
        for rnd in range(rounds):
            for label in ("off", "pdl", "pdl", "off"):
                _set_pdl(label == "pdl")
                forward()
                ms = ab._graph_bench(forward)
                times[label].append(ms)
                print(f"D={D} p={p_drop} {pattern:34s} round {rnd + 1} {label:4s} {ms:7.4f} ms "
                      f"{flops / ms / 1e9:6.1f} TFLOP/s", flush=True)
        off, on = min(times["off"]), min(times["pdl"])
        print(f"D={D} p={p_drop} {pattern:34s} best off {off:.4f} / pdl {on:.4f} ms "
              f"({off / on - 1:+.1%})", flush=True)
    _set_pdl(True)


def _kernels(trace_path: str):
    """[(name, start us, duration us)] of the GPU kernels in a chrome trace, in order,
    but for ``torch.cuda._sleep``'s spin kernel."""
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    kernels = [(e["name"], float(e["ts"]), float(e["dur"])) for e in events
               if e.get("cat") == "kernel" and e.get("ph") == "X"
               and "spin_kernel" not in e["name"]]
    return sorted(kernels, key=lambda kernel: kernel[1])


def print_kernels(kernels, width: int = 60) -> None:
    """One line a kernel of :func:`_kernels`: its name, its time, and the gap from the
    end of the one before (negative where it started before that one ended)."""
    end = None
    for name, start, dur in kernels:
        gap = "" if end is None else f"gap {start - end:+7.1f} us"
        print(f"    {name[:width]:{width}s} {dur:9.1f} us  {gap}", flush=True)
        end = start + dur


def timeline(trace_dir: str) -> None:
    from torch.profiler import ProfilerActivity, profile
    os.makedirs(trace_dir, exist_ok=True)
    for D, pattern in ((64, "local(1) | global(1) | random(2)"), (128, "local(3)"),
                       (128, "dense")):
        _, _, (q, k, v, do, tables, meta, seed) = _case(D, pattern, 1, 16384, 0.0,
                                                        split=False)
        for on in (False, True):
            _set_pdl(on)

            def fwd_bwd():
                o, lse = launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, None,
                                        0.0)[:2]
                return launch.backward(do, q, k, v, o, lse, tables, meta, D ** -0.5, None,
                                       None, None, 0.0)

            for _ in range(3):
                fwd_bwd()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                torch.cuda._sleep(100_000_000)  # the host queues every launch behind it
                fwd_bwd()
                torch.cuda.synchronize()
            name = f"d{D}-{pattern.split(' ')[0].replace('(', '').replace(')', '')}-" \
                   f"{'pdl' if on else 'off'}"
            path = os.path.join(trace_dir, f"{name}.json")
            prof.export_chrome_trace(path)
            kernels = _kernels(path)
            print(f"timeline D={D} {pattern} PDL {'on' if on else 'off'}: "
                  f"{len(kernels)} kernels, first start to last end "
                  f"{kernels[-1][1] + kernels[-1][2] - kernels[0][1]:.1f} us", flush=True)
            print_kernels(kernels, 48)
    _set_pdl(True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--stress", type=int, default=60)
    parser.add_argument("--trace", default=None, help="folder for the chrome traces")
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name(),
          "PDL available:", hopper.PDL_MERGE, flush=True)
    if args.stress and not stress(args.stress):
        raise SystemExit("race: not timing")
    forward_ab(args.rounds)
    if args.trace:
        timeline(args.trace)


if __name__ == "__main__":
    main()
