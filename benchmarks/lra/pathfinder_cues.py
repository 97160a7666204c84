"""How much of Pathfinder a shortcut solves: accuracy from the distance between the markers.

A positive image marks both ends of one snake, so its markers are at most that snake's
length apart; a negative one marks ends of two snakes, which may be anywhere. A classifier
that only thresholds the marker distance therefore beats chance without tracing any
contour. This script measures that floor per resolution, so that a model's accuracy can be
read against it (a Transformer at the floor may have learned the shortcut, not the task):

    python -m benchmarks.lra.pathfinder_cues                    # 32, 64, 128, 256 px
    python -m benchmarks.lra.pathfinder_cues --resolutions 128 --samples 8000

For each resolution it generates ``--samples`` images with the training generator's
settings (hard, contour length 14; a seed of its own), fits the best threshold
``label = 1 if distance <= t`` on the first half and reports its accuracy on the second
half. The distance is computed from the generator's marker centres, which is at least as
good as any model could estimate it from pixels. Results: ``--out`` (JSON).
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Sequence

import torch

from .pathfinder import generate_pathfinder, pathfinder_config


def best_threshold(distance: torch.Tensor, label: torch.Tensor) -> tuple[float, float]:
    """The threshold ``t`` maximising the accuracy of ``label = (distance <= t)``, and that
    accuracy. ``distance`` float ``(S,)``, ``label`` int ``(S,)`` in {0, 1}."""
    order = torch.argsort(distance)
    d, y = distance[order], label[order].long()
    # Predicting 1 for the first k sorted samples and 0 for the rest is right on
    # (positives among the first k) + (negatives after them).
    pos_before = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(y, 0)])
    neg_total = int((y == 0).sum())
    neg_before = torch.arange(len(y) + 1) - pos_before
    correct = pos_before + (neg_total - neg_before)
    # A threshold cannot split equal distances: only cut between different ones.
    cuttable = torch.ones(len(y) + 1, dtype=torch.bool)
    cuttable[1:-1] = d[1:] != d[:-1]
    k = int(torch.argmax(torch.where(cuttable, correct, -1)))
    threshold = float(d[k - 1]) if k > 0 else float("-inf")
    return threshold, float(correct[k]) / len(y)


def distance_floor(resolution: int, samples: int, seed: int) -> dict:
    """Fit on half of ``samples`` generated images, score on the other half."""
    start = time.perf_counter()
    batch, debug = generate_pathfinder(samples, resolution, seed=seed, return_debug=True)
    distance = (debug.markers[:, 0] - debug.markers[:, 1]).norm(dim=-1)
    half = samples // 2
    threshold, fit_acc = best_threshold(distance[:half], batch.labels[:half])
    held_out = float(((distance[half:] <= threshold).long() == batch.labels[half:])
                     .float().mean())
    return {"resolution": resolution, "samples": samples, "threshold_px": threshold,
            "fit_accuracy": fit_acc, "held_out_accuracy": held_out,
            "positive_rate": float(batch.labels.float().mean()),
            "contour_length": pathfinder_config(resolution).contour_length,
            "seconds": round(time.perf_counter() - start, 1)}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.lra.pathfinder_cues",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--resolutions", type=int, nargs="+", default=[32, 64, 128, 256])
    p.add_argument("--samples", type=int, default=4000, help="images per resolution (>= 4)")
    p.add_argument("--seed", type=int, default=12345,
                   help="generator seed (the training splits use others)")
    p.add_argument("--out", default="benchmarks/results/pathfinder-cues.json")
    argv = list(sys.argv[1:] if argv is None else argv)
    args = p.parse_args(argv)
    if args.samples < 4:
        p.error("--samples must be at least 4")
    rows = []
    for res in args.resolutions:
        try:
            row = distance_floor(res, args.samples, args.seed)
        except ValueError as exc:
            p.error(str(exc))
        rows.append(row)
        print(f"{res:4d} px: marker distance <= {row['threshold_px']:6.1f} px -> "
              f"{100 * row['held_out_accuracy']:.1f}% held out "
              f"({row['samples'] // 2} fit, {row['samples'] - row['samples'] // 2} scored; "
              f"{row['seconds']} s)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"command": "python -m benchmarks.lra.pathfinder_cues "
                               + shlex.join(argv),
                               "machine": platform.machine(), "rows": rows}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
