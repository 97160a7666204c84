"""Training-step time and peak memory of an LRA task model, dense vs block-sparse.

``python -m benchmarks.lra.speed --task pathfinder --seq-lens 1024 16384 65536`` times one
full training step (forward, backward, AdamW update) of the task's model (``--config full``
by default) at each sequence length, for ``dense`` and for the config's sparse pattern (or
``--layouts ...``). This is the comparison behind the speed-up column of the FlashAttention
paper's Long-range Arena table (Dao et al. 2022, Section 4.1: block-sparse vs dense
training), measured on this library.

Inputs are random tokens without padding (padding would let the kernels skip key blocks and
confound the comparison). A sequence length that is a perfect square gets 2-D positions for
Pathfinder (the image it would be); otherwise 1-D learned positions.

``--compile MODE`` runs the model under ``torch.compile`` (e.g. ``reduce-overhead``, whose
CUDA graphs take the host's launches out of short steps), with each attention layer's
layout built before the first compiled call. A compiled model cannot look at its tokens on
the host, so for a task with a padding id (ListOps, text) it passes a padding mask on every
step, and attention runs its padded kernels (no key block is skipped here, but the
padded backward is not the fused one); results then go to
``lra-speed-<task>-<config>-compile-<MODE>-<hardware>.json``. Under CUDA graphs the peak
memory counts from the second warm-up step on, which records the graphs and allocates
their memory pool (the first step compiles).

Timing: on CUDA, CUDA events around each step after ``--warmup`` untimed steps (which also
compile the layout and autotune the kernels), bf16 autocast, and
``torch.cuda.max_memory_allocated`` after ``reset_peak_memory_stats``; on CPU,
``time.perf_counter`` in float32 and no memory figure. A run that raises an out-of-memory
error is recorded as ``"oom"`` and the sweep goes on. Results go to
``<out-dir>/lra-speed-<task>-<config>-<hardware>.json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import torch
import torch.nn.functional as F

from .configs import COMPILE_MODES, CUDA_GRAPH_MODES, LRAConfig, get_config, resolve_task
from .model import LRAClassifier


def _is_oom(exc: BaseException) -> bool:
    if isinstance(exc, torch.OutOfMemoryError):
        return True
    text = str(exc).lower()
    return isinstance(exc, RuntimeError) and ("out of memory" in text
                                              or "can't allocate memory" in text)


def build_speed_model(cfg: LRAConfig, layout: str, seq_len: int) -> LRAClassifier:
    """The task model of ``cfg`` with ``layout``, sized for ``seq_len`` input tokens."""
    from .train import task_spec

    spec = task_spec(cfg)
    side = math.isqrt(seq_len)
    two_d = cfg.positional == "2d" and side * side == seq_len
    return LRAClassifier(
        vocab_size=spec.vocab_size, num_classes=spec.num_classes, d_model=cfg.d_model,
        num_heads=cfg.num_heads, num_layers=cfg.num_layers, ffn_dim=cfg.ffn_dim,
        max_len=seq_len, image_size=(side, side) if two_d else None, pad_id=spec.pad_id,
        pooling=cfg.pooling, positional="2d" if two_d else ("none" if cfg.positional == "none"
                                                            else "learned"),
        layout=layout, block=cfg.block, dropout=cfg.dropout, attn_dropout=cfg.attn_dropout,
    )


def time_steps(cfg: LRAConfig, layout: str, seq_len: int, batch_size: int,
               device: torch.device, *, warmup: int = 2, iters: int = 5,
               compile_mode: Optional[str] = None) -> dict[str, Any]:
    """Time ``iters`` training steps after ``warmup`` untimed ones. With ``compile_mode``
    (a ``torch.compile`` mode: ``default``, ``reduce-overhead``, ...), the model's forward
    and backward run compiled (one graph: the model builds its attention layouts at
    construction, see :class:`~benchmarks.lra.model.LRAClassifier`), after at least three
    untimed steps (compile, and under reduce-overhead the CUDA graphs' warm-up and
    recording); the optimizer step stays eager.

    Returns ``{"step_ms": [per-step ms], "peak_mem_mb": float or None}``; out-of-memory
    errors propagate (see :func:`measure`).
    """
    from .train import task_spec

    torch.manual_seed(0)
    model = build_speed_model(cfg, layout, seq_len).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    forward = model
    if compile_mode is not None:
        forward = torch.compile(model, mode=compile_mode)
        warmup = max(warmup, 3)
    graphs = compile_mode in CUDA_GRAPH_MODES
    spec = task_spec(cfg)
    low = 1 if spec.pad_id == 0 else 0  # no padding token in the input
    tokens = torch.randint(low, spec.vocab_size, (batch_size, seq_len), device=device)
    labels = torch.randint(0, spec.num_classes, (batch_size,), device=device)
    cuda = device.type == "cuda"

    def step() -> None:
        if graphs:
            torch.compiler.cudagraph_mark_step_begin()
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=cuda):
            logits = forward(tokens)
        F.cross_entropy(logits.float(), labels).backward()
        opt.step()

    for i in range(warmup):
        step()
        # CUDA graphs allocate their memory pool while recording (the second warm-up
        # step) and keep it: their peak counts from after the first step, which compiled
        # (and may have allocated the compiler's benchmarking buffers).
        if cuda and (i == 0 if graphs else i == warmup - 1):
            torch.cuda.synchronize(device)
            torch.cuda.reset_peak_memory_stats(device)
    if cuda and warmup == 0:
        torch.cuda.reset_peak_memory_stats(device)
    times = []
    for _ in range(iters):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            step()
            times.append(1e3 * (time.perf_counter() - t0))
    peak = torch.cuda.max_memory_allocated(device) / 2**20 if cuda else None
    return {"step_ms": times, "peak_mem_mb": peak}


def measure(cfg: LRAConfig, layout: str, seq_len: int, batch_size: int, device: torch.device,
            *, warmup: int, iters: int, compile_mode: Optional[str] = None) -> dict[str, Any]:
    """One result row; an out-of-memory error becomes ``status="oom"``."""
    from sparseflash import compile_layout

    n_model = seq_len + (cfg.pooling == "cls")
    lay = compile_layout(layout, n_model, block=cfg.block, num_heads=cfg.num_heads)
    row: dict[str, Any] = {"layout": layout, "seq_len": seq_len, "batch_size": batch_size,
                           "block": cfg.block, "density": round(lay.density, 6),
                           "nnz": lay.nnz, "compile": compile_mode}
    try:
        r = time_steps(cfg, layout, seq_len, batch_size, device, warmup=warmup, iters=iters,
                       compile_mode=compile_mode)
    except Exception as exc:  # only out-of-memory is expected; anything else is a bug
        if not _is_oom(exc):
            raise
        row.update(status="oom", error=str(exc).splitlines()[0][:300])
    else:
        med = statistics.median(r["step_ms"])
        row.update(status="ok", step_ms_median=round(med, 3),
                   step_ms_min=round(min(r["step_ms"]), 3),
                   step_ms=[round(t, 3) for t in r["step_ms"]],
                   tokens_per_s=round(batch_size * seq_len / (med / 1e3), 1),
                   peak_mem_mb=None if r["peak_mem_mb"] is None else round(r["peak_mem_mb"], 1))
    finally:
        gc.collect()
        if device.type == "cuda":
            torch.cuda.empty_cache()
    return row


def run_sweep(cfg: LRAConfig, layouts: Sequence[str], seq_lens: Sequence[int], batch_size: int,
              device: torch.device, *, warmup: int = 2, iters: int = 5,
              max_step_seconds: Optional[float] = None, compile_mode: Optional[str] = None,
              log: Any = print) -> list[dict[str, Any]]:
    """Rows for every (layout, seq_len); lengths ascending. Once a layout runs out of memory
    or a step takes longer than ``max_step_seconds``, its longer lengths are recorded as
    skipped instead of run."""
    rows = []
    for layout in layouts:
        stop_reason = None
        for n in sorted(seq_lens):
            if stop_reason:
                rows.append({"layout": layout, "seq_len": n, "batch_size": batch_size,
                             "status": "skipped", "error": stop_reason})
                log(_format_row(rows[-1]))
                continue
            row = measure(cfg, layout, n, batch_size, device, warmup=warmup, iters=iters,
                          compile_mode=compile_mode)
            rows.append(row)
            if row["status"] == "oom":
                stop_reason = f"out of memory at seq_len {n}"
            elif (max_step_seconds is not None
                  and row["step_ms_median"] > 1e3 * max_step_seconds):
                stop_reason = f"step at seq_len {n} took more than {max_step_seconds:g} s"
            log(_format_row(row))
    return rows


def _format_row(row: dict[str, Any]) -> str:
    if row["status"] != "ok":
        return f"{row['layout']:>32s}  N={row['seq_len']:<6d}  {row['status']}: {row['error']}"
    mem = "" if row["peak_mem_mb"] is None else f"  peak {row['peak_mem_mb']:,.0f} MiB"
    return (f"{row['layout']:>32s}  N={row['seq_len']:<6d}  density {row['density']:.3f}  "
            f"step {row['step_ms_median']:,.1f} ms  {row['tokens_per_s']:,.0f} tok/s{mem}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.lra.speed",
                                description="Training-step time and peak memory of an LRA "
                                            "task model, dense vs block-sparse.")
    p.add_argument("--task", default="pathfinder", help="task (default: pathfinder)")
    p.add_argument("--config", default="full", help="model size: full or tiny (default: full)")
    p.add_argument("--seq-lens", type=int, nargs="+", help="sequence lengths (default: the task's)")
    p.add_argument("--layouts", nargs="+", help="patterns to time (default: dense and the "
                                                "config's pattern)")
    p.add_argument("--block", type=int, help="layout block size (default: the config's)")
    p.add_argument("--batch-size", type=int, default=1, help="batch size (default 1)")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps first (default 2)")
    p.add_argument("--iters", type=int, default=5, help="timed steps (default 5)")
    p.add_argument("--device", help="cpu or cuda (default: cuda if available)")
    p.add_argument("--threads", type=int, help="torch CPU threads")
    p.add_argument("--compile", metavar="MODE",
                   choices=COMPILE_MODES,
                   help="run the model under torch.compile with this mode (the model builds "
                        "its layouts at construction, so it compiles to one graph)")
    p.add_argument("--max-step-seconds", type=float,
                   help="skip longer sequences of a layout once its step exceeds this")
    p.add_argument("--out-dir", default="benchmarks/results", help="results directory")
    argv = list(sys.argv[1:] if argv is None else argv)
    args = p.parse_args(argv)

    from sparseflash import LayoutError, parse

    from .train import DistEnv, hardware_info, hardware_name, resolve_device, versions

    try:
        cfg = get_config(resolve_task(args.task), args.config)
        if args.block is not None:
            cfg = cfg.replace(block=args.block)
        device = resolve_device(args.device)
    except ValueError as exc:
        p.error(str(exc))
    layouts = args.layouts or list(dict.fromkeys(["dense", cfg.layout]))
    for layout in layouts:
        try:
            parse(layout)
        except LayoutError as exc:
            p.error(f"bad layout:\n{exc}")
    seq_lens = args.seq_lens or [cfg.seq_len]
    if any(n < 1 for n in seq_lens) or args.batch_size < 1 or args.iters < 1 or args.warmup < 0:
        p.error("sequence lengths, --batch-size and --iters must be >= 1, --warmup >= 0")
    if args.threads is not None:
        if args.threads < 1:
            p.error("--threads must be >= 1")
        torch.set_num_threads(args.threads)

    env = DistEnv(0, 1, 0, device)  # one process: this script does not use torchrun
    hw = hardware_name(env)
    print(f"{cfg.name} model on {hw}: layouts {layouts}, seq lens {sorted(seq_lens)}, "
          f"batch {args.batch_size}", file=sys.stderr)
    rows = run_sweep(cfg, layouts, seq_lens, args.batch_size, device, warmup=args.warmup,
                     iters=args.iters, max_step_seconds=args.max_step_seconds,
                     compile_mode=args.compile,
                     log=lambda s: print(s, file=sys.stderr, flush=True))
    result = {
        "task": cfg.task, "config": cfg.name,
        "model": {k: getattr(cfg, k) for k in ("d_model", "num_heads", "num_layers", "ffn_dim",
                                               "pooling", "block")},
        "dtype": "bfloat16 autocast" if device.type == "cuda" else "float32",
        "warmup": args.warmup, "iters": args.iters, "compile": args.compile,
        "command": shlex.join(["python", "-m", "benchmarks.lra.speed"] + argv),
        "hardware": hardware_info(env), "versions": versions(), "rows": rows,
    }
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    compiled = "" if args.compile is None else f"-compile-{args.compile}"
    path = out / f"lra-speed-{cfg.task}-{cfg.variant}{compiled}-{hw}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
