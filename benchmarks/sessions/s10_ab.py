"""Session 10: one tree's kernels, timed per kernel, for an A/B against another tree.

    python benchmarks/sessions/s10_ab.py --label new [--out results.json]

Run once from each tree's own directory (``python -m`` or a script puts the working
directory first on sys.path). For each head dim and layout of the README's table
(N = 16K, B = 1, H = 16, bf16): the forward launcher alone (do_bench), the backward
launcher's kernels (CUDA time per kernel from torch.profiler, so host time is left out),
and a whole fwd+bwd through ``sparseflash.attention`` with autograd (do_bench).
"""

import argparse
import json
import sys
from collections import defaultdict

import torch
import triton

import sparseflash
from sparseflash.kernels import launch

PATTERNS = ["dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)"]


def kernel_times(run, iters: int = 20) -> dict:
    """Mean CUDA time (ms) per call of each kernel ``run`` launches."""
    run()
    torch.cuda.synchronize()
    totals = defaultdict(float)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            run()
        torch.cuda.synchronize()
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            totals[event.name] += event.device_time / 1000 / iters
    return totals


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--label", required=True)
    p.add_argument("--out")
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    args = p.parse_args()
    N, H = args.seq_len, 16
    print(f"{args.label}: sparseflash from {sparseflash.__file__}; triton {triton.__version__}, "
          f"{torch.cuda.get_device_name()}")
    rows = []
    for d in args.head_dims:
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v, do = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16,
                                   generator=gen) for _ in range(4))
        scale = d ** -0.5
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            flops = 4 * H * N * N * d * layout.density
            fwd = lambda: launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)  # noqa: E731
            o, lse = fwd()
            bwd = lambda: launch.backward(do, q, k, v, o, lse, tables, meta, scale, None,  # noqa: E731
                                          None, 0, 0.0)
            qg, kg, vg = (x.detach().requires_grad_() for x in (q, k, v))

            def fwd_bwd():
                out = sparseflash.attention(qg, kg, vg, layout)
                torch.autograd.grad(out, (qg, kg, vg), do)
            fwd_bwd()
            fwd_ms = triton.testing.do_bench(fwd, warmup=25, rep=200)
            kernels = kernel_times(bwd)
            dkdv = sum(ms for name, ms in kernels.items() if "dkdv" in name)
            dq = sum(ms for name, ms in kernels.items() if "dq_kernel" in name)
            fb_ms = triton.testing.do_bench(fwd_bwd, warmup=25, rep=200)
            row = dict(label=args.label, D=d, pattern=pattern, density=layout.density,
                       fwd_ms=fwd_ms, fwd_tflops=flops / fwd_ms / 1e9, dkdv_ms=dkdv,
                       dq_ms=dq, bwd_kernels_ms=sum(kernels.values()), fwd_bwd_ms=fb_ms,
                       fwd_bwd_tflops=3.5 * flops / fb_ms / 1e9)
            rows.append(row)
            print(f"{args.label} D={d} {pattern:34s} fwd {row['fwd_tflops']:6.1f} TFLOP/s "
                  f"({fwd_ms:.3f} ms)  dK/dV {dkdv:.3f} ms  dQ {dq:.3f} ms  "
                  f"all bwd kernels {row['bwd_kernels_ms']:.3f} ms  "
                  f"fwd+bwd {row['fwd_bwd_tflops']:6.1f} TFLOP/s ({fb_ms:.3f} ms)")
            sys.stdout.flush()
            if args.out:  # after every row: a run cut short by its time limit keeps its rows
                with open(args.out, "w") as f:
                    json.dump(rows, f, indent=1)
        # The tiles the autotuner picked, per kernel and key (session 12: which tile a
        # layout got explains some A/B differences); after each head dim, for the same
        # reason.
        for name in ("_forward", "_dq", "_dkdv"):
            for key, cfg in getattr(getattr(launch, name), "picked", {}).items():
                if ("BLOCK_D", d) in key:
                    print(f"{args.label} picked {name} {key}: {cfg}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
