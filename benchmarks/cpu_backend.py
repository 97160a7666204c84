"""The CPU path: how long ``backend="torch"`` takes for a forward + backward on a CPU.

    python -m benchmarks.cpu_backend                      # B=8, H=4, N=4096, D=64, float32
    python -m benchmarks.cpu_backend --seq-len 1024 --threads 1 --repeats 5

Times ``sparseflash.attention(q, k, v, PATTERN, backend="torch")`` forward alone and
forward + backward (median of ``--repeats`` runs after ``--warmup`` runs), and, where it
fits in memory, the dense masked-softmax reference
(:func:`sparseflash.reference.dense_attention` over ``Layout.to_dense()``) that builds the
full ``(B, H, N, N)`` score matrix. Each measurement runs in a fresh child process by
default, so that its peak resident memory (``resource.getrusage().ru_maxrss``, a per-process
high-water mark that never goes down) belongs to that measurement alone.

Recorded with the figures: the CPU model, core and thread counts, torch / Python / sparseflash
versions. Records are appended to ``benchmarks/results/cpu-backend.json`` (a list, newest
last), like the GPU benchmarks do.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

RESULTS = Path(__file__).parent / "results"
DEFAULT_OUT = RESULTS / "cpu-backend.json"
DEFAULT_PATTERN = "local(2) | global(1)"

# The dense reference keeps several (B, H, N, N) float32 tensors alive for autograd (scores,
# the masked scores, the exponentials, the probabilities, the broadcast mask) and the backward
# adds as many again. 8 is a measured-order-of-magnitude factor, not a bound: the estimate only
# decides whether to try at all, and an out-of-memory kill in the child is reported as such.
_REFERENCE_NN_COPIES = 8


# ----------------------------------------------------------------------------- arguments
def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cpu_backend", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch", "-B", type=int, default=8)
    p.add_argument("--heads", "-H", type=int, default=4)
    p.add_argument("--seq-len", "-N", type=int, default=4096)
    p.add_argument("--head-dim", "-D", type=int, default=64)
    p.add_argument("--pattern", default=DEFAULT_PATTERN)
    p.add_argument("--block", type=int, default=128)
    p.add_argument("--dtype", default="float32", choices=["float32", "float64", "bfloat16"])
    p.add_argument("--threads", type=int, default=None,
                   help="torch intra-op threads (default: torch's own choice)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs; the median is reported")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs before timing")
    p.add_argument("--reference", choices=["auto", "always", "never"], default="auto",
                   help="time the dense masked-softmax reference: 'auto' only where the "
                        "estimated memory fits in what is available")
    p.add_argument("--no-isolate", dest="isolate", action="store_false",
                   help="measure in this process (faster to start; peak RSS is then shared "
                        "by all measurements)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="JSON file to append the record to")
    p.add_argument("--no-save", dest="save", action="store_false",
                   help="print only; do not write the JSON file")
    args = p.parse_args(argv)
    for name in ("batch", "heads", "seq_len", "head_dim", "repeats"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.warmup < 0:
        p.error(f"--warmup must be >= 0, got {args.warmup}")
    if args.threads is not None and args.threads < 1:
        p.error(f"--threads must be >= 1, got {args.threads}")
    return args


# ----------------------------------------------------------------------------- machine facts
def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine_info() -> Dict:
    import torch
    import sparseflash
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every OS
        affinity = None
    return dict(cpu=cpu_model(), machine=platform.machine(), cores=os.cpu_count(),
                cores_usable=affinity, platform=platform.platform(),
                python=platform.python_version(), torch=torch.__version__,
                sparseflash=sparseflash.__version__,
                torch_parallel=torch.__config__.parallel_info().splitlines()[:6])


def peak_rss_mb() -> float:
    """This process's peak resident set size in MiB (ru_maxrss is KiB on Linux, bytes on
    macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 2**10


def current_rss_mb() -> Optional[float]:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


def available_memory_mb() -> Optional[float]:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2**10
    except (OSError, ValueError):
        pass
    return None


def _loadavg() -> Optional[List[float]]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def reference_memory_mb(B: int, H: int, N: int, itemsize: int = 4) -> float:
    """Rough peak of a dense-reference forward + backward, in MiB."""
    return _REFERENCE_NN_COPIES * B * H * N * N * itemsize / 2**20


def effective_flops(B: int, H: int, N: int, D: int, density: float, mode: str) -> float:
    """The GPU benchmark's convention: 4*B*H*N^2*D*density, x3.5 for forward + backward."""
    return 4.0 * B * H * N * N * D * density * {"fwd": 1.0, "fwd+bwd": 3.5}[mode]


# ----------------------------------------------------------------------------- measurement
def _measure(spec: Dict) -> Dict:
    """Time one method (``spec['method']`` is "sparseflash" or "reference") in this process.
    Returns medians in seconds, every timed run, and the peak RSS."""
    import torch
    import sparseflash
    from sparseflash.reference import dense_attention

    if spec["threads"] is not None:
        torch.set_num_threads(spec["threads"])
    B, H, N, D = spec["B"], spec["H"], spec["N"], spec["D"]
    dtype = getattr(torch, spec["dtype"])
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(B, H, N, D, generator=gen, dtype=torch.float32).to(dtype)
               .requires_grad_() for _ in range(3))
    grad = torch.randn(B, H, N, D, generator=gen, dtype=torch.float32).to(dtype)
    layout = sparseflash.compile_layout(spec["pattern"], N, block=spec["block"], num_heads=H)

    if spec["method"] == "sparseflash":
        def forward():
            return sparseflash.attention(q, k, v, layout, backend="torch")
    elif spec["method"] == "reference":
        mask = layout.to_dense()

        def forward():
            return dense_attention(q, k, v, mask)[0]
    else:
        raise ValueError(f"unknown method {spec['method']!r}; expected 'sparseflash' or "
                         "'reference'")

    def step(mode):
        start = time.perf_counter()
        if mode == "fwd":
            with torch.no_grad():
                forward()
        else:
            torch.autograd.grad(forward(), (q, k, v), grad)
        return time.perf_counter() - start

    rss_before = current_rss_mb()
    result = dict(method=spec["method"], threads=torch.get_num_threads(),
                  interop_threads=torch.get_num_interop_threads(), density=layout.density)
    for mode in spec["modes"]:
        for _ in range(spec["warmup"]):
            step(mode)
        times = [step(mode) for _ in range(spec["repeats"])]
        result[mode] = dict(median_s=statistics.median(times), runs_s=times)
    result["rss_before_mb"] = rss_before
    result["peak_rss_mb"] = peak_rss_mb()
    return result


def _child(spec, queue):
    try:
        queue.put(("ok", _measure(spec)))
    except BaseException as exc:  # report it to the parent instead of a bare exit code
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def measure(spec: Dict, isolate: bool) -> Dict:
    """Run :func:`_measure` in a fresh 'spawn' child (isolate=True) or here."""
    if not isolate:
        return _measure(spec)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(spec, queue))
    proc.start()
    status, payload = None, None
    # Read before join: a child blocked on a full pipe would never exit.
    while proc.is_alive() or not queue.empty():
        try:
            status, payload = queue.get(timeout=1.0)
            break
        except Exception:  # queue.Empty; keep waiting while the child lives
            continue
    proc.join()
    if status == "ok":
        return payload
    if status == "error":
        raise RuntimeError(payload)
    # No message: the child died, most often killed by the kernel's OOM killer (SIGKILL).
    raise RuntimeError(f"the measuring process exited with code {proc.exitcode} and no "
                       "result (a negative code is a signal: -9 is usually the out-of-memory "
                       "killer)")


def run(args: argparse.Namespace) -> Dict:
    """Measure sparseflash (and the reference where asked and it fits); return the record."""
    B, H, N, D = args.batch, args.heads, args.seq_len, args.head_dim
    base = dict(B=B, H=H, N=N, D=D, dtype=args.dtype, pattern=args.pattern, block=args.block,
                threads=args.threads, repeats=args.repeats, warmup=args.warmup)
    started = time.time()
    load_before = _loadavg()
    rows = []
    sf = measure(dict(base, method="sparseflash", modes=["fwd", "fwd+bwd"]), args.isolate)
    rows.append(_row(sf, base))

    itemsize = 8 if args.dtype == "float64" else 4  # the reference computes in q's dtype
    need = reference_memory_mb(B, H, N, itemsize)
    avail = available_memory_mb()
    skip_reason = None
    if args.reference == "never":
        skip_reason = "not requested (--reference never)"
    elif args.reference == "auto" and avail is not None and need > 0.8 * avail:
        skip_reason = (f"estimated {need:,.0f} MiB for the (B, H, N, N) tensors exceeds 80% of "
                       f"the {avail:,.0f} MiB available")
    if skip_reason is None:
        try:
            ref = measure(dict(base, method="reference", modes=["fwd", "fwd+bwd"]),
                          args.isolate)
            rows.append(_row(ref, base))
        except RuntimeError as exc:
            skip_reason = f"failed: {exc}"
    if skip_reason is not None:
        rows.append(dict(base, method="reference", skipped=skip_reason,
                         estimated_mb=round(need)))
    argv = args.argv if hasattr(args, "argv") else sys.argv[1:]
    return dict(command="python -m benchmarks.cpu_backend " + " ".join(
                    f"'{a}'" if " " in a else a for a in argv),
                date=time.strftime("%Y-%m-%dT%H:%M:%S%z"), isolated=args.isolate,
                seconds=round(time.time() - started, 1),
                # Other work on the machine slows a small thread pool a lot (every op waits
                # for both threads): keep the load next to the figures.
                loadavg_before=load_before, loadavg_after=_loadavg(),
                **machine_info(), rows=rows)


def _row(result: Dict, base: Dict) -> Dict:
    row = dict(base, method=result["method"], threads=result["threads"],
               interop_threads=result["interop_threads"], density=result["density"],
               rss_before_mb=result["rss_before_mb"], peak_rss_mb=result["peak_rss_mb"])
    for mode in ("fwd", "fwd+bwd"):
        if mode in result:
            s = result[mode]["median_s"]
            row[f"{mode}_s"] = s
            # On a shared machine the fastest run is the best estimate of the quiet time.
            row[f"{mode}_min_s"] = min(result[mode]["runs_s"])
            row[f"{mode}_runs_s"] = result[mode]["runs_s"]
            # The reference computes every block: its useful work is still the layout's.
            row[f"{mode}_gflops"] = effective_flops(base["B"], base["H"], base["N"], base["D"],
                                                    result["density"], mode) / s / 1e9
    return row


def format_record(record: Dict) -> str:
    """A short human-readable summary of one record."""
    lines = [f"CPU: {record['cpu']} ({record['cores']} cores; torch {record['torch']}, "
             f"Python {record['python']}); load average before/after "
             f"{record.get('loadavg_before')} / {record.get('loadavg_after')}"]
    for r in record["rows"]:
        head = (f"{r['method']:11s} B={r['B']} H={r['H']} N={r['N']} D={r['D']} {r['dtype']} "
                f"{r['pattern']!r}")
        if "skipped" in r:
            lines.append(f"{head}: skipped ({r['skipped']})")
            continue
        lines.append(f"{head} density {r['density']:.1%}, {r['threads']} threads: "
                     f"fwd {r['fwd_s']:.3f} s (min {r['fwd_min_s']:.3f}), fwd+bwd "
                     f"{r['fwd+bwd_s']:.3f} s (min {r['fwd+bwd_min_s']:.3f}; "
                     f"{r['fwd+bwd_gflops']:.1f} effective GFLOP/s at the median), "
                     f"peak RSS {r['peak_rss_mb']:,.0f} MiB")
    by = {r["method"]: r for r in record["rows"] if "skipped" not in r}
    if "sparseflash" in by and "reference" in by:
        sf, ref = by["sparseflash"], by["reference"]
        lines.append(f"sparseflash vs dense reference: fwd+bwd "
                     f"{ref['fwd+bwd_s'] / sf['fwd+bwd_s']:.2f}x faster, peak RSS "
                     f"{ref['peak_rss_mb'] / sf['peak_rss_mb']:.2f}x smaller")
    return "\n".join(lines)


def append_record(path: Path, record: Dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    previous = json.loads(path.read_text()) if path.exists() else []
    if not isinstance(previous, list):
        raise ValueError(f"{path} does not hold a list of records; move it aside first")
    path.write_text(json.dumps(previous + [record], indent=1) + "\n")


def main(argv: Optional[List[str]] = None) -> Dict:
    args = parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    record = run(args)
    print(format_record(record))
    if args.save:
        append_record(Path(args.out), record)
        print(f"wrote {args.out}")
    return record


if __name__ == "__main__":
    main()
