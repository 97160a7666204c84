"""Attention speed and memory: sparseflash against SDPA and FlexAttention on one GPU.

    python -m benchmarks.attention --seq-lens 16384 --head-dims 64 128 --dtypes bfloat16 \\
        --patterns dense "local(3)" butterfly "local(1) | global(1) | random(2)" \\
        --modes fwd fwd+bwd

Every method's output is first checked against SDPA (dense/causal), the materialised masked
reference in float32 (other patterns, N <= 8192), or, beyond that, the torch backend in
float32 on five sampled query-block rows (first, second, middle, last two), then timed
with ``triton.testing.do_bench`` (median); each row also records ``kernel_ms``, the summed
CUDA time of the call's kernels (torch profiler), which tells a host-bound row from a slow
kernel. Effective
TFLOP/s = 4 * B * H * N^2 * D * density / time (x 3.5 for fwd+bwd; x 2.5 for bwd), density
being the fraction of blocks on. Each row also records the wall time of the method's first
forward and backward call in the process (``first_call_s``, ``first_backward_s``): compile
and autotune time for the first pattern at a (D, dtype), launch time after. Rows go to
``benchmarks/results/<gpu>-attention.json`` (appended per run, with the command, GPU,
versions, and under ``failures`` each method that failed its check, call or timing, with
the error) and a markdown table is printed, the failures listed under it.

``--timer cudagraph`` times every method with ``triton.testing.do_bench_cudagraph``
instead: each call (a forward, or a forward and its backward) captured many times over in
one CUDA graph and replayed, so that no method's time includes the host's launches, which
set the time of calls shorter than ~1 ms on some hosts (NOTES v26). No L2 flush between
calls there (inputs of 32-64 MB partly stay in the 50 MB L2): the figures suit comparing
methods with one another, not with ``events`` figures. Rows record their ``timer``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import torch

import sparseflash
from benchmarks.peers import DENSE_ONLY, METHODS, error_line
from benchmarks.profile_call import kernel_times

RESULTS = Path(__file__).parent / "results"
FORWARD_ONLY = {"sparseflash-kernel"}


def _flops(layout, B, H, N, Nk, D, mode):
    fwd = 4.0 * B * H * N * Nk * D * layout.density
    return fwd * {"fwd": 1.0, "bwd": 2.5, "fwd+bwd": 3.5}[mode]


def _reference(q, k, v, layout):
    """(reference output, query-token index it covers or None for all) for a sparse
    pattern: the masked dense reference up to N = 8192, sampled rows of the torch backend
    beyond (a full reference would need N^2 memory or hours)."""
    N = q.shape[2]
    if N <= 8192:
        # In float32: the naive method in bf16 rounds the scores and P to bf16 and is itself
        # off by ~0.02 at N = 4096 (sparseflash and Flex then agree with each other, not it).
        # Without autograd: a reference with a graph would keep q's, k's and v's gradient
        # nodes alive on this stream, which breaks a CUDA-graph capture of their backward.
        with torch.no_grad():
            return METHODS["naive"](q.float(), k.float(), v.float(), layout)(), None
    from sparseflash.reference import block_forward
    nq = layout.num_q_blocks
    rows = sorted({0, 1, nq // 2, nq - 2, nq - 1})
    with torch.no_grad():
        out, _ = block_forward(q.detach(), k.detach(), v.detach(), layout,
                               q.shape[-1] ** -0.5, rows=rows)
    tokens = torch.cat([torch.arange(r * layout.block, min((r + 1) * layout.block, N))
                        for r in rows]).to(q.device)
    return out, tokens


def _check(out, reference, name, tol):
    reference, tokens = reference if isinstance(reference, tuple) else (reference, None)
    if tokens is not None:
        out, reference = out[:, :, tokens], reference[:, :, tokens]
    err = (out.float() - reference.float()).abs().max().item()
    if not (err <= tol):
        raise RuntimeError(f"{name}: max error {err:.3g} against the reference exceeds {tol}")
    return err


TIMERS = ("events", "cudagraph")


def _time(fn, mode, inputs, timer: str = "events"):
    """-> (median ms of one call by ``do_bench``, or with ``timer="cudagraph"`` by
    ``do_bench_cudagraph``, and its kernels' summed CUDA time in ms).

    The second is what the GPU was busy with per call (the torch profiler over a few calls,
    back to back, without do_bench's L2 flush between them): where it falls well short of
    the first, the host's launches, not the kernels, set the row's time. A diagnostic, not
    a figure: the profiler read the D=128 ping-pong forward 12% under and 19% over its
    CUDA-event time in two rounds (benchmarks/NOTES.md, v24)."""
    from triton import testing
    if mode == "fwd":
        step = fn
    else:
        out = fn()
        grad = torch.randn_like(out)
        if mode == "fwd+bwd":
            # Not kept: a live output keeps its autograd graph, whose nodes belong to this
            # stream, and do_bench_cudagraph's capture on another stream then fails.
            del out

            def step():
                o = fn()
                torch.autograd.grad(o, inputs, grad)
        else:
            def step():
                torch.autograd.grad(out, inputs, grad, retain_graph=True)
    if timer == "cudagraph":
        if mode == "bwd":
            raise ValueError("--timer cudagraph times fwd and fwd+bwd (a backward alone "
                             "would replay a graph built outside the capture)")
        torch.cuda.synchronize()  # its capture stream does not wait for this one
        ms = testing.do_bench_cudagraph(step, rep=100, return_mode="median")
    else:
        ms = testing.do_bench(step, warmup=25, rep=100, return_mode="median")
    return ms, _kernel_ms(step)


def _kernel_ms(step, calls: int = 10) -> float:
    """Summed CUDA kernel (and memcpy/memset) time per call of ``step``, in ms."""
    step()
    torch.cuda.synchronize()
    return sum(ms for ms, _ in kernel_times(step, calls).values())


def _peak_mb(fn, mode, inputs) -> float:
    """Memory one call adds beyond what is already allocated, measured outside do_bench:
    do_bench allocates a 256 MB L2-flush buffer of its own after any reset we could do."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    out = fn()
    if mode != "fwd":
        torch.autograd.grad(out, inputs, torch.ones_like(out))
    del out
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - base) / 2**20


def _failure(method: str, pattern: str, N: int, D: int, dtype: str, mode: Optional[str],
             exc: BaseException, stage: str) -> Dict:
    """A method that could not run or be timed, as the record keeps it: printed too, so
    that a peer out of memory (Flex at 64K on an 80 GB H100, session 58) is on record
    and not merely absent from the rows."""
    failure = dict(method=method, pattern=pattern, N=N, D=D, dtype=dtype, mode=mode,
                   stage=stage, error=error_line(exc, limit=200))
    where = f" {mode}" if mode else ""
    print(f"  {method} on {pattern!r} N={N} D={D}{where}: {stage} failed: {failure['error']}",
          file=sys.stderr)
    return failure


def run(args, failures: Optional[List[Dict]] = None) -> list:
    """The measured rows; each method that fails a check, a call or its timing is skipped
    and, given ``failures``, appended to it (:func:`_failure`)."""
    device = torch.device("cuda")
    rows = []
    failures = [] if failures is None else failures
    gpu = torch.cuda.get_device_name()
    for dtype_name in args.dtypes:
        dtype = getattr(torch, dtype_name)
        for D in args.head_dims:
            for N in args.seq_lens:
                B = max(1, args.tokens // N)
                H = args.heads
                gen = torch.Generator(device=device).manual_seed(0)
                q, k, v = (torch.randn(B, H, N, D, device=device, dtype=dtype, generator=gen)
                           .requires_grad_() for _ in range(3))
                for pattern in args.patterns:
                    layout = sparseflash.compile_layout(pattern, N, block=args.block,
                                                        num_heads=H, device=device)
                    causal = pattern.strip() == "causal"
                    reference = None
                    if pattern.strip() in ("dense", "causal"):
                        with torch.no_grad():  # see _reference
                            reference = torch.nn.functional.scaled_dot_product_attention(
                                q, k, v, is_causal=causal)
                    for method in args.methods:
                        if method in DENSE_ONLY and pattern.strip() not in ("dense", "causal"):
                            continue
                        if method == "naive" and N > 8192:
                            continue
                        try:
                            fn = METHODS[method](q, k, v, layout, is_causal=causal)
                            # Cold start: the first call compiles (and autotunes) whatever
                            # this D and dtype have not needed yet in this process.
                            torch.cuda.synchronize()
                            started = time.perf_counter()
                            out = fn()
                            torch.cuda.synchronize()
                            first_s = time.perf_counter() - started
                            first_bwd_s = None
                            if method not in FORWARD_ONLY and "fwd+bwd" in args.modes:
                                started = time.perf_counter()
                                torch.autograd.grad(out, (q, k, v), torch.ones_like(out),
                                                    retain_graph=True)
                                torch.cuda.synchronize()
                                first_bwd_s = time.perf_counter() - started
                            if reference is None:
                                reference = _reference(q, k, v, layout)
                            tol = 2e-2 if dtype != torch.float32 else 1e-3
                            err = _check(out, reference, method, tol)
                            del out
                        except Exception as exc:  # a peer that cannot run is reported, not fatal
                            failures.append(_failure(method, pattern, N, D, dtype_name, None,
                                                     exc, "the checked call"))
                            continue
                        for mode in args.modes:
                            if method in FORWARD_ONLY and mode != "fwd":
                                continue
                            peak = _peak_mb(fn, mode, (q, k, v))
                            try:
                                ms, kernel_ms = _time(fn, mode, (q, k, v), args.timer)
                            except Exception as exc:  # e.g. a peer that cannot be captured
                                failures.append(_failure(method, pattern, N, D, dtype_name,
                                                         mode, exc, "timing"))
                                continue
                            tflops = _flops(layout, B, H, N, N, D, mode) / (ms * 1e-3) / 1e12
                            row = dict(method=method, pattern=pattern, density=layout.density,
                                       N=N, B=B, H=H, D=D, dtype=dtype_name, mode=mode, ms=ms,
                                       tflops=tflops, peak_mb=peak, max_err=err, gpu=gpu,
                                       first_call_s=first_s, first_backward_s=first_bwd_s,
                                       kernel_ms=kernel_ms, timer=args.timer)
                            rows.append(row)
                            print(f"{method:12s} {pattern:34s} N={N:6d} D={D:3d} {mode:7s} "
                                  f"{ms:8.3f} ms {tflops:7.1f} TFLOP/s peak {peak:8.1f} MB "
                                  f"err {err:.1e} kernels {kernel_ms:.3f} ms", flush=True)
                del q, k, v
    return rows


def table(rows) -> str:
    """Markdown: one line per (pattern, N, D, dtype, mode), TFLOP/s per method and the
    sparseflash/flex ratio."""
    methods = sorted({r["method"] for r in rows})
    keys = sorted({(r["pattern"], r["N"], r["D"], r["dtype"], r["mode"]) for r in rows},
                  key=lambda k: (k[3], k[2], k[4], k[1], k[0]))
    head = "| pattern | N | D | dtype | mode | density | " + " | ".join(methods) + " | sf / flex |"
    lines = [head, "|" + "---|" * (6 + len(methods) + 1)]
    for key in keys:
        sel = {r["method"]: r for r in rows
               if (r["pattern"], r["N"], r["D"], r["dtype"], r["mode"]) == key}
        density = next(iter(sel.values()))["density"]
        cells = [f"{sel[m]['tflops']:.0f}" if m in sel else "" for m in methods]
        ratio = (f"{sel['sparseflash']['tflops'] / sel['flex']['tflops']:.2f}x"
                 if "sparseflash" in sel and "flex" in sel else "")
        lines.append(f"| `{key[0]}` | {key[1]} | {key[2]} | {key[3]} | {key[4]} | "
                     f"{density:.1%} | " + " | ".join(cells) + f" | {ratio} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seq-lens", type=int, nargs="+", default=[16384])
    p.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    p.add_argument("--dtypes", nargs="+", default=["bfloat16"])
    p.add_argument("--patterns", nargs="+",
                   default=["dense", "local(3)", "butterfly", "local(1) | global(1) | random(2)"])
    p.add_argument("--methods", nargs="+",
                   default=["sparseflash", "flex", "sdpa-cudnn", "sdpa-flash"])
    p.add_argument("--modes", nargs="+", default=["fwd", "fwd+bwd"])
    p.add_argument("--tokens", type=int, default=16384, help="B * N")
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--block", type=int, default=128)
    p.add_argument("--out", default=None, help="JSON path (default results/<gpu>-attention.json)")
    p.add_argument("--timer", choices=TIMERS, default="events",
                   help="events: do_bench (CUDA events around calls, L2 flushed before each); "
                        "cudagraph: do_bench_cudagraph (calls replayed from a CUDA graph, no "
                        "host launches in the time)")
    p.add_argument("--note", default=None,
                   help="free text kept in the record, e.g. what else ran on the machine")
    args = p.parse_args(argv)
    if args.timer == "cudagraph" and "bwd" in args.modes:
        p.error("--timer cudagraph times the modes fwd and fwd+bwd, not bwd")
    if not torch.cuda.is_available():
        sys.exit("this benchmark needs a CUDA GPU")
    started = time.time()
    failures: List[Dict] = []
    rows = run(args, failures)
    gpu = torch.cuda.get_device_name().replace(" ", "-")
    out = Path(args.out) if args.out else RESULTS / f"{gpu}-attention.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    record = dict(command="python -m benchmarks.attention " + " ".join(
        f"'{a}'" if " " in a else a for a in (argv or sys.argv[1:])),
        gpu=torch.cuda.get_device_name(), torch=torch.__version__,
        triton=__import__("triton").__version__, python=platform.python_version(),
        date=time.strftime("%Y-%m-%dT%H:%M:%S%z"), seconds=round(time.time() - started, 1),
        **({"note": args.note} if args.note else {}), rows=rows,
        **({"failures": failures} if failures else {}))
    previous = json.loads(out.read_text()) if out.exists() else []
    out.write_text(json.dumps(previous + [record], indent=1))
    print(table(rows))
    for failure in failures:
        print(f"- not measured: {failure['method']} on `{failure['pattern']}` N={failure['N']} "
              f"D={failure['D']} {failure['dtype']} {failure['mode'] or ''} "
              f"({failure['stage']}: {failure['error']})")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
