"""Overlay the learning curves of several LRA runs in one PNG.

    python -m benchmarks.lra.compare benchmarks/results/lra-pathfinder32-full-*-NVIDIA-H200.json \
        --out benchmarks/results/plots/lra-pathfinder32-runs.png

Reads the results JSON that :mod:`benchmarks.lra.train` writes (its ``history``: one row per
evaluation with ``step``, ``train_acc``, ``val_acc``, ...) and draws one line per run:
validation accuracy on the left, training accuracy on the right, so that runs which
memorise (training up, validation flat) stand apart from runs which learn. Runs are named
by their tag (the part of the file name between the config and the hardware) unless
``--labels`` gives names.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence


def load_runs(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """``[{"name", "history", "test_acc"}]`` of each results JSON, in the order given.

    Raises ``ValueError`` naming a file that is not a results JSON (no ``history``)."""
    runs = []
    for path in map(Path, paths):
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or "history" not in data:
            raise ValueError(f"{path} is not a results JSON of benchmarks.lra (no 'history')")
        runs.append({"name": data.get("name", path.stem), "history": data["history"],
                     "test_acc": data.get("test_acc")})
    return runs


def short_label(name: str, task_prefix: str) -> str:
    """``lra-pathfinder32-full-emb1-aug-NVIDIA-H200`` -> ``emb1-aug`` (given the prefix
    ``lra-pathfinder32-full-``): the run's tag, without the hardware suffix."""
    label = name[len(task_prefix):] if name.startswith(task_prefix) else name
    for suffix in ("-NVIDIA-H200", "-NVIDIA-H100", "-cpu"):
        if label.endswith(suffix):
            label = label[: -len(suffix)]
    return label or name


def plot_runs(runs: Sequence[dict[str, Any]], path: Path, *, title: str = "",
              labels: Optional[Sequence[str]] = None, chance: Optional[float] = None) -> None:
    """Validation and training accuracy against step, one line per run, saved as ``path``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if labels is not None and len(labels) != len(runs):
        raise ValueError(f"{len(labels)} labels for {len(runs)} runs")
    prefix = _common_prefix([r["name"] for r in runs])
    fig = Figure(figsize=(12, 4.5), constrained_layout=True)
    FigureCanvasAgg(fig)
    ax_val, ax_train = fig.subplots(1, 2, sharey=True)
    for i, run in enumerate(runs):
        steps = [row["step"] for row in run["history"]]
        label = labels[i] if labels is not None else short_label(run["name"], prefix)
        if run["test_acc"] is not None:
            label += f" (test {100 * run['test_acc']:.1f}%)"
        line, = ax_val.plot(steps, [row["val_acc"] for row in run["history"]], label=label)
        ax_train.plot(steps, [row["train_acc"] for row in run["history"]],
                      color=line.get_color())
    for ax, what in ((ax_val, "validation"), (ax_train, "training")):
        if chance is not None:
            ax.axhline(chance, color="grey", linestyle=":", linewidth=1)
        ax.set(xlabel="step", title=f"{what} accuracy")
        ax.grid(alpha=0.3)
    ax_val.set_ylabel("accuracy")
    ax_val.legend(fontsize="small")
    if title:
        fig.suptitle(title)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def _common_prefix(names: Sequence[str]) -> str:
    """The longest common prefix of ``names`` that ends at a ``-`` (empty for one name)."""
    if len(names) < 2:
        return ""
    prefix = names[0]
    for name in names[1:]:
        while not name.startswith(prefix):
            prefix = prefix[:-1]
    return prefix[: prefix.rfind("-") + 1]


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.lra.compare",
        description="Overlay the learning curves of several LRA runs (results JSON files).")
    p.add_argument("results", nargs="+", help="results JSON files of benchmarks.lra")
    p.add_argument("--out", required=True, help="PNG to write")
    p.add_argument("--title", default="", help="figure title")
    p.add_argument("--labels", nargs="+", help="one name per run (default: the run tags)")
    p.add_argument("--chance", type=float, help="draw a dotted line at this accuracy")
    args = p.parse_args(argv)
    try:
        runs = load_runs(args.results)
        plot_runs(runs, Path(args.out), title=args.title, labels=args.labels,
                  chance=args.chance)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ImportError:
        print("error: matplotlib is needed (pip install matplotlib, or the [viz] extra)",
              file=sys.stderr)
        return 2
    print(f"wrote {args.out} ({len(runs)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
