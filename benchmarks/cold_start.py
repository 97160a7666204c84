"""Cold start: how long the first forward and the first backward of each layout take in a
fresh process (compiling and autotuning whatever the process has not met yet), against
the same call once warm, and what the autotuner measured for every candidate tile.

    python -m benchmarks.cold_start --head-dims 64 --out results/cold-d64.json

Run it as the first thing in a process: the figures are the compile and tuning work of
each layout after the ones before it in ``--patterns``. Whether Triton's cache directory
was empty matters as much (a second process finds the compiled kernels, and the picks,
on disk): the output says how many files it held at the start.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import torch

PATTERNS = ["dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)"]


def _cache_files() -> int:
    """Files under Triton's cache directory (``TRITON_CACHE_DIR``, else ``~/.triton/cache``)."""
    root = os.environ.get("TRITON_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".triton", "cache")
    return sum(len(files) for _, _, files in os.walk(root))


def _synced(fn):
    """Seconds ``fn()`` takes, the GPU's work included; and its result."""
    torch.cuda.synchronize()
    started = time.perf_counter()
    result = fn()
    torch.cuda.synchronize()
    return time.perf_counter() - started, result


def _tile(config) -> str:
    """``BLOCK_MxBLOCK_N/w<warps>/s<stages>``."""
    kw = config.kwargs
    return f"{kw['BLOCK_M']}x{kw['BLOCK_N']}/w{config.num_warps}/s{config.num_stages}"


def _tuning_record() -> list:
    """Per kernel and tuning key: every candidate's median ms and the pick. Empty for a
    sparseflash without ``Kernel.timings`` (an older tree run for comparison)."""
    from sparseflash.kernels import launch
    rows = []
    for name in ("_forward", "_dq", "_dkdv"):
        kernel = getattr(launch, name)
        for static, timings in getattr(kernel, "timings", {}).items():
            picked = kernel.picked.get(static)
            rows.append(dict(
                kernel=name.strip("_"), key=repr(static),
                picked=_tile(picked) if picked is not None else None,
                candidates=[dict(config=_tile(c),
                                 ms=(t[0] if isinstance(t, (list, tuple)) else t))
                            for c, t in timings.items()]))
    return rows


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--patterns", nargs="+", default=PATTERNS)
    p.add_argument("--head-dims", nargs="+", type=int, default=[64])
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--label", default="", help="recorded with the results (e.g. the tree)")
    p.add_argument("--out", help="JSON file for the results (written, not appended)")
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("benchmarks.cold_start times first calls on a CUDA GPU, and this "
                         "machine has none")

    import sparseflash
    import triton
    record = dict(label=args.label, gpu=torch.cuda.get_device_name(),
                  torch=torch.__version__, triton=triton.__version__,
                  python=platform.python_version(), cpus=os.cpu_count(),
                  command=" ".join(sys.argv), cache_files_at_start=_cache_files(),
                  env={k: v for k, v in os.environ.items() if k.startswith("SPARSEFLASH_")},
                  sparseflash=sparseflash.__file__, calls=[])
    print(f"{record['gpu']}, Triton {record['triton']}, {record['cpus']} CPUs, "
          f"{record['cache_files_at_start']} files in Triton's cache, {args.label}", flush=True)
    dtype = getattr(torch, args.dtype)
    process_start = time.perf_counter()
    for D in args.head_dims:
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(1, args.heads, args.seq_len, D, device="cuda", dtype=dtype,
                               generator=gen).requires_grad_() for _ in range(3))
        grad = torch.ones_like(q)
        for pattern in args.patterns:
            layout = sparseflash.compile_layout(pattern, args.seq_len, num_heads=args.heads,
                                                device="cuda")
            runs = []
            for _ in range(2):  # cold, then warm
                fwd_s, out = _synced(lambda: sparseflash.attention(q, k, v, layout))
                bwd_s, _ = _synced(lambda: torch.autograd.grad(out, (q, k, v), grad))
                runs.append((fwd_s, bwd_s))
            (fwd, bwd), (warm_fwd, warm_bwd) = runs
            record["calls"].append(dict(pattern=pattern, D=D, N=args.seq_len,
                                        first_forward_s=fwd, first_backward_s=bwd,
                                        warm_forward_s=warm_fwd, warm_backward_s=warm_bwd))
            print(f"D={D:3d} {pattern:34s} first forward {fwd:7.2f} s, backward {bwd:7.2f} s"
                  f" (warm {warm_fwd * 1e3:6.2f} + {warm_bwd * 1e3:6.2f} ms)", flush=True)
        del q, k, v, grad
    record["total_s"] = time.perf_counter() - process_start
    record["tuning"] = _tuning_record()
    print(f"total {record['total_s']:.1f} s", flush=True)
    for row in record["tuning"]:
        if not row["candidates"]:
            print(f"{row['kernel']:8s} {row['key']}\n    {row['picked']}: the autotuner's "
                  "pick for its key (constexprs outside the key differ)", flush=True)
            continue
        print(f"{row['kernel']:8s} {row['key']}\n    picked {row['picked']} of "
              f"{len(row['candidates'])}: " + ", ".join(
                  f"{c['config']}={c['ms']:.3f}" for c in
                  sorted(row["candidates"], key=lambda c: c["ms"])), flush=True)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
