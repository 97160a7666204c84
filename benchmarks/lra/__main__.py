"""``python -m benchmarks.lra``: train an LRA-style classifier with a sparseflash layout.

Examples::

    python -m benchmarks.lra --task listops --config tiny --layout "local(2) | global(1)"
    python -m benchmarks.lra --task listops --config tiny --layout dense      # dense baseline
    python -m benchmarks.lra --task pathfinder32 --config full --max-minutes 230
    python -m benchmarks.lra --task pathfinder32 --config full --resume       # next sitting
    torchrun --nproc-per-node 8 -m benchmarks.lra --task text --config full  # 8 GPUs, DDP
    python -m benchmarks.lra --task pathx --config curriculum --init-from CKPT  # from Path-64
    python -m benchmarks.lra --list                                            # all configs
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Optional, Sequence

from .configs import (COMPILE_MODES, TASK_ALIASES, TASKS, VARIANTS, LRAConfig,
                      apply_overrides, fine_tunes_from, get_config, resolve_task, variants)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.lra",
        description="Train a Transformer-encoder classifier on a Long Range Arena style task "
                    "(ListOps, Pathfinder 32-256 px, byte-level BBC News) with a block-sparse "
                    "attention layout, and write metrics under benchmarks/results/.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="tasks: " + ", ".join(TASKS) + "; aliases: "
               + ", ".join(f"{a}={t}" for a, t in TASK_ALIASES.items()),
    )
    p.add_argument("--task", help="task name (see below)")
    p.add_argument("--config", default="tiny",
                   help=f"configuration: {', '.join(VARIANTS)} (tuned: Pathfinder only; "
                        "curriculum: Pathfinder 64-256 px, with --init-from; default: tiny)")
    p.add_argument("--layout", help="sparseflash pattern overriding the config's, e.g. "
                                    "'local(2) | global(1)'; 'dense' for the dense baseline")
    p.add_argument("--block", type=int, help="layout block size (default: the config's)")
    p.add_argument("--steps", type=int, help="number of optimizer steps (default: the config's)")
    p.add_argument("--seed", type=int, help="seed of init, data order and dropout (default 0)")
    p.add_argument("--device", help="cpu, cuda or cuda:N (default: cuda if available)")
    p.add_argument("--out-dir", default="benchmarks/results",
                   help="where the JSON/CSV/PNG results go (default: benchmarks/results)")
    p.add_argument("--ckpt-dir", help="where checkpoints go (default: $SPARSEFLASH_CHECKPOINTS "
                                      "or ~/.cache/sparseflash/checkpoints)")
    p.add_argument("--data-dir", help="dataset cache (default: $SPARSEFLASH_DATA or "
                                      "~/.cache/sparseflash/lra)")
    p.add_argument("--resume", nargs="?", const="auto", metavar="CHECKPOINT",
                   help="continue this run from its checkpoint (or from CHECKPOINT)")
    p.add_argument("--max-minutes", type=float,
                   help="stop cleanly with a checkpoint after this many minutes")
    p.add_argument("--stop-at-step", type=int,
                   help="stop cleanly with a checkpoint after this step (continue with --resume)")
    p.add_argument("--init-from", metavar="CHECKPOINT",
                   help="start from another run's best weights (positional tables are "
                        "interpolated, e.g. Path-64 -> Path-X)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override any config field, e.g. --set num_layers=4 --set lr=1e-3 "
                        "(repeatable)")
    p.add_argument("--threads", type=int, help="torch CPU threads (default: the config's)")
    p.add_argument("--tag", help="extra word in the result names (default: the layout, when "
                                 "--layout differs from the config's)")
    p.add_argument("--compile", metavar="MODE",
                   choices=COMPILE_MODES,
                   help="run the training steps under torch.compile with this mode "
                        "(reduce-overhead: in CUDA graphs, for short steps on a GPU; "
                        "one process only)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--list", action="store_true", help="list the configurations and exit")
    return p


def _list_configs() -> str:
    lines = []
    for task in TASKS:
        for variant in variants(task):
            c = get_config(task, variant)
            lines.append(f"{c.name:20s} N={c.seq_len:<6d} L={c.num_layers} d={c.d_model:<4d} "
                         f"h={c.num_heads} ffn={c.ffn_dim:<5d} batch={c.batch_size:<4d} "
                         f"steps={c.steps:<7d} layout={c.layout!r} block={c.block}")
    return "\n".join(lines)


def config_from_args(args: argparse.Namespace,
                     parser: argparse.ArgumentParser) -> tuple[LRAConfig, Optional[str]]:
    """The run's config and tag; bad input exits through ``parser.error`` (status 2)."""
    if not args.task:
        parser.error("--task is required (choose from " + ", ".join(TASKS) + ")")
    try:
        task = resolve_task(args.task)
        cfg = get_config(task, args.config)
    except ValueError as exc:
        parser.error(str(exc))
    default_layout = cfg.layout
    changes = {}
    if args.layout is not None:
        changes["layout"] = args.layout
    for key in ("block", "steps", "seed"):
        if getattr(args, key) is not None:
            changes[key] = getattr(args, key)
    if args.threads is not None:
        changes["cpu_threads"] = args.threads
    try:
        cfg = apply_overrides(cfg, args.set)
        if "steps" in changes and cfg.eval_interval > changes["steps"]:
            changes["eval_interval"] = changes["steps"]
        cfg = cfg.replace(**changes)
    except ValueError as exc:
        parser.error(str(exc))
    # Fail on a bad pattern now, with the caret, rather than inside the first forward pass.
    from sparseflash import LayoutError, compile_layout

    from .train import model_seq_len

    try:
        compile_layout(cfg.layout, model_seq_len(cfg), block=cfg.block, num_heads=cfg.num_heads)
    except (LayoutError, ValueError) as exc:
        parser.error(f"bad --layout:\n{exc}")
    tag = args.tag
    if tag is None and cfg.layout != default_layout:
        tag = cfg.layout
    return cfg, tag


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if args.list:
        print(_list_configs())
        return 0
    cfg, tag = config_from_args(args, parser)
    source = fine_tunes_from(cfg.task, args.config)
    if source and args.init_from is None and args.resume is None:
        parser.error(f"--config {args.config} fine-tunes {source}: give its checkpoint "
                     "with --init-from CHECKPOINT (or continue a run with --resume)")
    if args.max_minutes is not None and args.max_minutes <= 0:
        parser.error("--max-minutes must be > 0")
    if args.stop_at_step is not None and args.stop_at_step < 1:
        parser.error("--stop-at-step must be >= 1")

    from .train import SetupError, resolve_device, train

    if args.device is not None:
        try:
            resolve_device(args.device)
        except ValueError as exc:
            parser.error(str(exc))
    try:
        train(cfg, out_dir=args.out_dir, ckpt_dir=args.ckpt_dir, device=args.device,
              resume=args.resume, max_minutes=args.max_minutes, stop_at_step=args.stop_at_step,
              init_from=args.init_from, data_dir=args.data_dir, tag=tag,
              command=shlex.join(["python", "-m", "benchmarks.lra"] + argv),
              progress=not args.no_progress, compile_mode=args.compile)
    except SetupError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
