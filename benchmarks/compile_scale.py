"""How long compiling a long-sequence layout takes, and how much memory it needs.

Issue 2's scale target: compiling ``local(4) | global(1) | butterfly`` for seq_len =
1,048,576 at block 128 (8192 x 8192 blocks), kernel tables included, takes under 2 s on a
2-core CPU and builds the tables in O(nnz) memory (the block mask is never materialised).

Each measurement runs in a fresh Python process, so nothing is cached and the peak-memory
reading belongs to the compile alone::

    python benchmarks/compile_scale.py            # writes benchmarks/results/compile_scale.json
    python benchmarks/compile_scale.py --repeats 5 --seq-len 262144

Runs are made with torch's default thread count and with one thread (``--threads``): on a
shared machine whose other core is busy, torch's 2-thread parallel regions can stall for a
scheduler slice each, which a single thread avoids; the load average is recorded with the
results.

Reported per repeat, each from its own fresh process: the wall seconds of
``compile_layout(...)`` + ``layout.kernel_tables()`` as the process's first call (cold:
parsing and every first use included), the same after a small warm-up compile (warm), and
the peak resident memory the warm compile adds (Linux: VmHWM after resetting it through
/proc/self/clear_refs; elsewhere the growth of ru_maxrss, a lower bound).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

PATTERN = "local(4) | global(1) | butterfly"
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "compile_scale.json"


# -- one measurement, in this process ----------------------------------------------------------
def _rss_peak_kib() -> tuple:
    """(peak RSS in KiB, how it was measured)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]), "VmHWM"
    except OSError:
        pass
    scale = 1 if sys.platform != "darwin" else 1 / 1024  # bytes on macOS
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale), "ru_maxrss"


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS (Linux >= 4.0)
        return True
    except OSError:
        return False


def worker(pattern: str, seq_len: int, block: int, threads: int, warmup: bool) -> dict:
    """One compile at scale in this (fresh) process.

    Without ``warmup`` the compile is the process's first: its time includes one-time
    costs (first use of each torch kernel, sympy). With ``warmup`` the same pattern is first
    compiled for a small sequence, so the measured compile's peak-memory growth is the
    data it allocates, not code pages faulted in on first use."""
    import gc

    import torch
    if threads > 0:
        torch.set_num_threads(threads)

    import sparseflash
    from sparseflash.layout import compiler, parser

    if warmup:
        sparseflash.compile_layout(pattern, 64 * block, block=block).kernel_tables()
        parser.parse.cache_clear()
        compiler._compile_cached.cache_clear()
        gc.collect()

    reset = _reset_peak()
    before, how = _rss_peak_kib()
    start = time.perf_counter()
    layout = sparseflash.compile_layout(pattern, seq_len, block=block)
    compiled = time.perf_counter()
    tables = layout.kernel_tables()
    done = time.perf_counter()
    after, _ = _rss_peak_kib()

    h, nq, nk = layout.shape
    return {
        "seconds": done - start,
        "compile_seconds": compiled - start,
        "tables_seconds": done - compiled,
        "peak_extra_rss_mib": (after - before) / 1024,
        "peak_measure": how + (" after a clear_refs reset" if reset else " growth (lower bound)"),
        "nnz": layout.nnz,
        "shape": [h, nq, nk],
        "density": layout.density,
        "table_bytes": sum(t.numel() * t.element_size() for t in tables),
        "key_bytes": sum(t.numel() * t.element_size()
                         for t in (layout.full_keys, layout.partial_keys, layout.partial_codes)),
        "block_mask_materialised": "mask" in layout.__dict__,
        "torch_threads": torch.get_num_threads(),
    }


# -- driver ------------------------------------------------------------------------------------
def machine_info() -> dict:
    import torch
    info = {
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_model": platform.processor() or None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
    }
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        info["load_average_1m_5m_15m"] = list(os.getloadavg())
    except OSError:
        pass
    try:
        import sparseflash
        info["sparseflash"] = sparseflash.__version__
        info["git_commit"] = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, text=True,
                                            capture_output=True).stdout.strip() or None
    except Exception:  # noqa: BLE001 - informational only
        pass
    return info


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pattern", default=PATTERN)
    ap.add_argument("--seq-len", type=int, default=1 << 20)
    ap.add_argument("--block", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=5, help="fresh processes per setting")
    ap.add_argument("--threads", default="0,1",
                    help="comma-separated torch thread counts to measure; 0 = torch's default")
    ap.add_argument("--target-seconds", type=float, default=2.0)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--warmup", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        print(json.dumps(worker(args.pattern, args.seq_len, args.block, int(args.threads),
                                args.warmup)))
        return 0

    load_before = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    settings = []
    for threads in [int(t) for t in args.threads.split(",")]:
        label = "default" if threads == 0 else str(threads)
        print(f"torch threads: {label}")
        runs = []
        for r in range(args.repeats):
            run = {}
            for mode in ("cold", "warm"):
                proc = subprocess.run(
                    [sys.executable, __file__, "--worker", "--pattern", args.pattern,
                     "--seq-len", str(args.seq_len), "--block", str(args.block),
                     "--threads", str(threads)] + (["--warmup"] if mode == "warm" else []),
                    capture_output=True, text=True, cwd=ROOT, check=True)
                run[mode] = json.loads(proc.stdout.strip().splitlines()[-1])
            runs.append(run)
            c, w = run["cold"], run["warm"]
            print(f"  run {r + 1}/{args.repeats}: cold {c['seconds']:.3f} s "
                  f"(compile {c['compile_seconds']:.3f} + tables {c['tables_seconds']:.3f}), "
                  f"warm {w['seconds']:.3f} s, peak extra {w['peak_extra_rss_mib']:.1f} MiB "
                  f"(cold process: {c['peak_extra_rss_mib']:.1f} MiB)", flush=True)
        cold = [r["cold"]["seconds"] for r in runs]
        warm = [r["warm"]["seconds"] for r in runs]
        peak = [r["warm"]["peak_extra_rss_mib"] for r in runs]
        settings.append({
            "torch_threads": runs[0]["cold"]["torch_threads"],
            "threads_requested": label,
            "cold_seconds_median": statistics.median(cold),
            "cold_seconds_min": min(cold),
            "cold_seconds_max": max(cold),
            "warm_seconds_median": statistics.median(warm),
            "peak_extra_rss_mib_median": statistics.median(peak),
            "peak_extra_rss_mib_max": max(peak),
            "cold_process_peak_extra_rss_mib_median": statistics.median(
                r["cold"]["peak_extra_rss_mib"] for r in runs),
            "meets_target": statistics.median(cold) < args.target_seconds,
            "runs": runs,
        })

    first = settings[0]["runs"][0]["cold"]
    h, nq, nk = first["shape"]
    machine = machine_info()
    machine["load_average_before"] = load_before
    result = {
        "pattern": args.pattern,
        "seq_len": args.seq_len,
        "block": args.block,
        "blocks": f"{nq} x {nk}",
        "nnz": first["nnz"],
        "density": first["density"],
        "repeats": args.repeats,
        "target_seconds": args.target_seconds,
        "meets_target": all(s["meets_target"] for s in settings),
        "table_mib": first["table_bytes"] / 2**20,
        "key_mib": first["key_bytes"] / 2**20,
        "dense_block_mask_mib": h * nq * nk / 2**20,  # bool, for comparison only
        "block_mask_materialised": first["block_mask_materialised"],
        "settings": settings,
        "machine": machine,
        "command": "python benchmarks/compile_scale.py " + " ".join(
            argv if argv is not None else sys.argv[1:]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\n{args.pattern!r} at seq_len={args.seq_len}, block={args.block} "
          f"({nq} x {nk} blocks, nnz={first['nnz']}, density {first['density']:.4%}), "
          f"{machine['cpus_usable']} CPUs, load average before {load_before}:")
    for s in settings:
        print(f"  torch threads {s['torch_threads']}: compile + kernel_tables median "
              f"{s['cold_seconds_median']:.3f} s cold (min {s['cold_seconds_min']:.3f}, max "
              f"{s['cold_seconds_max']:.3f}), {s['warm_seconds_median']:.3f} s warm; peak "
              f"extra memory {s['peak_extra_rss_mib_median']:.1f} MiB; target < "
              f"{args.target_seconds} s {'met' if s['meets_target'] else 'NOT met'}")
    print(f"  tables {result['table_mib']:.2f} MiB, keys {result['key_mib']:.2f} MiB; a dense "
          f"bool block mask would be {result['dense_block_mask_mib']:.0f} MiB, a token mask "
          f"{args.seq_len ** 2 / 2 ** 40:.0f} TiB")
    print(f"  wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
