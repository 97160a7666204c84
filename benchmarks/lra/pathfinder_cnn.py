"""Small CNN on Pathfinder-32/64/128: a sanity check that the generated data is learnable.

This is *not* an LRA result (LRA scores sequence models on flattened pixels; a CNN sees
the 2-D image). Its only purpose is to test the data: Pathfinder was introduced as a
task that convolutional networks solve (Linsley et al., 2018), so a small CNN trained
for a few minutes on the CPU should clearly beat chance (50%) if the images and labels
produced by :mod:`benchmarks.lra.pathfinder` are right. If it stays at chance, suspect
the generator before the Transformer.

Data: the cached splits of :func:`benchmarks.lra.pathfinder.load_pathfinder` at
``--resolution`` px (32, 64 or 128; default 32), ``--difficulty`` default "hard" =
contour length 14, data seed 0: the same generator settings as the Transformer runs
(``python -m benchmarks.lra --task pathfinder32`` and the 64/128 px runs). The training
set is a ``--num-train`` split (default 40K); since a split is generated in chunks of
10K images each seeded by its index, a multiple of 10K gives exactly the first
``num_train`` images of the standard 160K training split. Validation and test are the
standard 20K splits, or ``--num-eval`` images each (a multiple of 10K is again a prefix).

Model, input ``(B, 1, R, R)`` with ``R`` the resolution, pixels scaled to [0, 1]. At
32 px (72K parameters with the default widths 16/32/64)::

    [conv3x3 -> BN -> ReLU] x2 at 32x32 (16 ch), maxpool 2
    [conv3x3 -> BN -> ReLU] x2 at 16x16 (32 ch), maxpool 2
    [conv3x3 -> BN -> ReLU] x2 at  8x8  (64 ch)
    global average pool -> linear -> 2 logits

Every doubling of the resolution adds one more stage (maxpool 2, then two
conv3x3-BN-ReLU) at the last width, so the last stage always works on 8x8 maps and
its receptive field keeps up with the image: 3/4/5 stages at 32/64/128 px, receptive
field 32/68/140 px (:func:`receptive_field`; a central output of the last stage sees all
of the image but a 2 px strip on one side, the global average pool sees all of it),
72K/146K/220K parameters. ``widths`` are the channels of the first three stages whatever
the resolution.

Training: AdamW (constant learning rate), cross-entropy, random flips/transposes of the
image (connectivity, hence the label, is invariant under them), validation accuracy after
every epoch; the test accuracy is that of the best-validation epoch's weights.
One epoch of 40K images takes about 20 s on 2 CPU cores at 32 px, validation on 20K
included; one of 20K images about 60 s at 64 px and one of 10K about 170 s at 128 px,
validation on 2K included.

Reading the result: chance is 50%, but not all of the task needs contour tracing. The
markers of a positive image are the two ends of one snake, hence at most its length
(20.5 px at 32 px, "hard") apart, while a negative pair can be up to ~40 px apart:
marker distance alone gives 66.6-67.2% accuracy at every resolution
(``python -m benchmarks.lra.pathfinder_cues``). Well above that means connectivity.
Measured with the commands below (2 CPU cores): 100.0% test accuracy at 32 px, 99.9% at
64 px (best validation at epoch 4 of 9), 92.0% at 128 px (4 epochs, still rising when the
12-minute budget ran out): connectivity is learnable at all three resolutions.

Run (about 8 minutes on 2 cores at 32 px, plus ~15 s to generate the data the first
time; the 64 and 128 px commands below take 10 and 12 minutes, ~10 s of data)::

    python -m benchmarks.lra.pathfinder_cnn                       # 32 px, 8-minute budget
    python -m benchmarks.lra.pathfinder_cnn --epochs 5 --num-eval 2000
    python -m benchmarks.lra.pathfinder_cnn --resolution 64 --num-train 20000 \\
        --num-eval 2000 --max-minutes 10
    python -m benchmarks.lra.pathfinder_cnn --resolution 128 --num-train 10000 \\
        --num-eval 2000 --max-minutes 12

The result goes to ``<out-dir>/lra-pathfinder{R}-cnn-cpu.json`` (``--name`` changes the stem).
"""

from __future__ import annotations

import argparse
import copy
import datetime as _dt
import json
import math
import os
import platform
import shlex
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm.auto import tqdm

from .model import count_parameters
from .pathfinder import (NUM_CLASSES, PathfinderBatch, PathfinderDataConfig, load_pathfinder,
                         random_dihedral)

RESOLUTION = 32  # the default
RESOLUTIONS: tuple[int, ...] = (32, 64, 128)
DEFAULT_NAME = "lra-pathfinder32-cnn-cpu"  # default_name(RESOLUTION)
DEFAULT_MAX_MINUTES = 8.0


def default_name(resolution: int) -> str:
    """Results file stem of a run at ``resolution`` px: ``lra-pathfinder{resolution}-cnn-cpu``."""
    return f"lra-pathfinder{resolution}-cnn-cpu"


def num_stages(resolution: int) -> int:
    """Conv stages of the model at ``resolution`` px: 3 at 32, one more per doubling."""
    if resolution not in RESOLUTIONS:
        raise ValueError(f"resolution must be one of {RESOLUTIONS}, got {resolution}")
    return 3 + RESOLUTIONS.index(resolution)


def receptive_field(stages: int) -> int:
    """Receptive field (px) of one output of the last convolution of a ``stages``-stage
    model: two 3x3 convolutions per stage, a 2x2 max-pool (stride 2) between stages.
    32 / 68 / 140 px for 3 / 4 / 5 stages."""
    field, jump = 1, 1
    for stage in range(stages):
        if stage:
            field, jump = field + jump, jump * 2  # maxpool 2, stride 2
        field += 2 * 2 * jump  # two 3x3 convolutions
    return field


@dataclass(frozen=True)
class CNNConfig:
    """Settings of one run.

    Attributes:
        resolution: image side in pixels (32, 64 or 128); the model has
            :func:`num_stages` stages.
        difficulty: Pathfinder difficulty ("easy"/"medium"/"hard" = contour 6/9/14).
        num_train: training images.
        num_eval: validation and test images each (``None``: the standard 20K splits).
        data_seed: base seed of the generated splits (0 = the Transformer runs' data).
        widths: channels of the first three stages (two convolutions each); the extra
            stages of 64/128 px keep the last width.
        batch_size: training batch.
        eval_batch_size: batch for validation/test.
        lr: AdamW learning rate (constant).
        weight_decay: AdamW decoupled weight decay.
        epochs: stop after this many epochs (``None``: only the time budget).
        max_minutes: wall-clock budget of training + validation (``None``: no budget).
            An epoch is started only if the time used so far plus the duration of the
            previous epoch fits in the budget; at least one epoch always runs.
        augment: random flips and transposes of the training images.
        seed: seed of the initialisation, the data order and the augmentation.
        threads: torch CPU threads while training (data generation always uses 1).
    """

    resolution: int = RESOLUTION
    difficulty: str = "hard"
    num_train: int = 40_000
    num_eval: Optional[int] = None
    data_seed: int = 0
    widths: tuple[int, int, int] = (16, 32, 64)
    batch_size: int = 128
    eval_batch_size: int = 1000
    lr: float = 2e-3
    weight_decay: float = 0.01
    epochs: Optional[int] = None
    max_minutes: Optional[float] = DEFAULT_MAX_MINUTES
    augment: bool = True
    seed: int = 0
    threads: int = 2

    def __post_init__(self) -> None:
        if self.resolution not in RESOLUTIONS:
            raise ValueError(f"resolution must be one of {RESOLUTIONS}, got {self.resolution}")
        if self.num_train < 1 or (self.num_eval is not None and self.num_eval < 1):
            raise ValueError("num_train and num_eval must be >= 1")
        if self.epochs is None and self.max_minutes is None:
            raise ValueError("give epochs, max_minutes or both")
        if self.epochs is not None and self.epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {self.epochs}")
        if self.max_minutes is not None and self.max_minutes <= 0:
            raise ValueError(f"max_minutes must be > 0, got {self.max_minutes}")
        if self.batch_size < 1 or self.eval_batch_size < 1 or self.threads < 1:
            raise ValueError("batch sizes and threads must be >= 1")
        if len(self.widths) != 3 or min(self.widths) < 1:
            raise ValueError(f"widths must be 3 positive channel counts, got {self.widths}")


# --------------------------------------------------------------------------- #
# Data
# --------------------------------------------------------------------------- #
def data_config(cfg: CNNConfig) -> PathfinderDataConfig:
    """The :class:`PathfinderDataConfig` of ``cfg``'s splits (``cfg.resolution``, default
    chunking)."""
    standard = PathfinderDataConfig()
    num_val = cfg.num_eval if cfg.num_eval is not None else standard.num_val
    num_test = cfg.num_eval if cfg.num_eval is not None else standard.num_test
    return PathfinderDataConfig(resolution=cfg.resolution, difficulty=cfg.difficulty,
                                num_train=cfg.num_train, num_val=num_val, num_test=num_test,
                                seed=cfg.data_seed)


def load_splits(cfg: CNNConfig, *, data_dir: Optional[str | os.PathLike] = None,
                progress: bool = True) -> dict[str, PathfinderBatch]:
    """Train/val/test splits, generated (one torch thread) and cached on first use.

    Returns:
        ``{"train" | "val" | "test": PathfinderBatch}`` with ``images`` uint8
        ``(S, R, R)`` (``R = cfg.resolution``) and ``labels`` int64 ``(S,)``.
    """
    dcfg = data_config(cfg)
    # One thread: the generator's many small ops are 5-10x slower with 2 OpenMP threads.
    return {split: load_pathfinder(split, dcfg, cache_dir=data_dir, progress=progress,
                                   num_threads=1)
            for split in ("train", "val", "test")}


def to_input(images: torch.Tensor) -> torch.Tensor:
    """uint8 ``(B, H, W)`` -> float32 ``(B, 1, H, W)`` in [0, 1], channels-last memory."""
    x = images.unsqueeze(1).float().div_(255.0)
    return x.contiguous(memory_format=torch.channels_last)


def random_dihedral_channels_last(x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """:func:`~benchmarks.lra.pathfinder.random_dihedral` of ``(B, C, H, H)`` images, in
    channels-last memory."""
    return random_dihedral(x, generator).contiguous(memory_format=torch.channels_last)


# --------------------------------------------------------------------------- #
# Model
# --------------------------------------------------------------------------- #
def _conv_bn_relu(c_in: int, c_out: int) -> list[nn.Module]:
    return [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out),
            nn.ReLU(inplace=True)]


class PathfinderCNN(nn.Module):
    """Conv stages of two conv3x3-BN-ReLU, max-pooling between stages, global average pool,
    linear head: ``(B, 1, R, R)`` float -> ``(B, num_classes)`` logits.

    ``R = resolution`` (32, 64 or 128) sets :func:`num_stages` (3, 4, 5): the three stages
    of ``widths`` plus one per doubling of 32 at the last width, so the last stage works on
    8x8 maps and its receptive field (:func:`receptive_field`) spans the image.
    """

    def __init__(self, widths: Sequence[int] = (16, 32, 64), num_classes: int = NUM_CLASSES,
                 *, resolution: int = RESOLUTION):
        super().__init__()
        self.resolution = resolution
        self.stages = num_stages(resolution)
        channels = [1, *widths] + [widths[-1]] * (self.stages - 3)
        layers: list[nn.Module] = []
        for stage in range(self.stages):
            if stage:
                layers.append(nn.MaxPool2d(2))
            c_in, c_out = channels[stage], channels[stage + 1]
            layers += [*_conv_bn_relu(c_in, c_out), *_conv_bn_relu(c_out, c_out)]
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(channels[-1], num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, 1, R, R)`` -> ``(B, num_classes)``."""
        if x.dim() != 4 or x.shape[1] != 1 or x.shape[-2:] != (self.resolution,) * 2:
            raise ValueError(f"expected (B, 1, {self.resolution}, {self.resolution}) images "
                             f"for this {self.stages}-stage model, got {tuple(x.shape)}")
        return self.head(self.features(x).mean(dim=(2, 3)))


# --------------------------------------------------------------------------- #
# Training
# --------------------------------------------------------------------------- #
@torch.inference_mode()
def evaluate(model: nn.Module, images: torch.Tensor, labels: torch.Tensor,
             batch_size: int) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of ``model`` on uint8 ``(S, H, W)`` / int64 ``(S,)``."""
    model.eval()
    loss_sum, correct = 0.0, 0
    for start in range(0, labels.numel(), batch_size):
        logits = model(to_input(images[start:start + batch_size]))
        y = labels[start:start + batch_size]
        loss_sum += F.cross_entropy(logits, y, reduction="sum").item()
        correct += int((logits.argmax(-1) == y).sum())
    n = max(labels.numel(), 1)
    return loss_sum / n, correct / n


def train_epoch(model: nn.Module, optimizer: torch.optim.Optimizer, images: torch.Tensor,
                labels: torch.Tensor, cfg: CNNConfig, generator: torch.Generator,
                bar: Any) -> tuple[float, float]:
    """One pass over uint8 ``(S, H, W)`` images / int64 ``(S,)`` labels in a random order.

    The last incomplete batch is kept. ``bar`` is a tqdm bar advanced once per batch.

    Returns:
        mean training cross-entropy and accuracy (with augmentation, in train mode).
    """
    model.train()
    order = torch.randperm(labels.numel(), generator=generator)
    loss_sum, correct, seen = 0.0, 0, 0
    for i, start in enumerate(range(0, labels.numel(), cfg.batch_size)):
        idx = order[start:start + cfg.batch_size]
        x, y = to_input(images[idx]), labels[idx]
        if cfg.augment:
            x = random_dihedral_channels_last(x, generator)
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        loss_sum += loss.item() * y.numel()
        correct += int((logits.detach().argmax(-1) == y).sum())
        seen += y.numel()
        bar.update(1)
        if i % 20 == 0:
            bar.set_postfix(loss=f"{loss_sum / seen:.4f}", acc=f"{correct / seen:.3f}")
    return loss_sum / seen, correct / seen


def train_cnn(cfg: CNNConfig, data: dict[str, PathfinderBatch], *,
              progress: bool = True) -> dict[str, Any]:
    """Train on ``data["train"]``, validate every epoch, test the best-validation weights.

    Args:
        cfg: run settings (``epochs``/``max_minutes`` decide when to stop).
        data: ``{"train" | "val" | "test": PathfinderBatch}`` of uint8 ``(S, R, R)`` images,
            ``R = cfg.resolution``.
        progress: show a tqdm bar per epoch.

    Returns:
        dict with ``epochs`` (per-epoch ``train_loss``, ``train_acc``, ``val_loss``,
        ``val_acc``, ``seconds``), ``best_epoch``, ``best_val_acc``, ``test_loss``,
        ``test_acc``, ``parameters``, ``train_seconds``, ``stopped_by`` and
        ``torch_threads``.
    """
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(cfg.threads)
    try:
        return _train(cfg, data, progress)
    finally:
        torch.set_num_threads(previous_threads)


def _train(cfg: CNNConfig, data: dict[str, PathfinderBatch], progress: bool) -> dict[str, Any]:
    torch.manual_seed(cfg.seed)
    generator = torch.Generator().manual_seed(cfg.seed + 1)
    model = PathfinderCNN(cfg.widths, resolution=cfg.resolution).to(
        memory_format=torch.channels_last)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    train, val, test = data["train"], data["val"], data["test"]
    num_batches = math.ceil(train.labels.numel() / cfg.batch_size)
    budget = cfg.max_minutes * 60 if cfg.max_minutes is not None else math.inf
    history: list[dict[str, Any]] = []
    best_acc, best_state = -1.0, None
    stopped_by = "epochs"
    t0 = time.perf_counter()
    epoch = 0
    while cfg.epochs is None or epoch < cfg.epochs:
        elapsed = time.perf_counter() - t0
        if history and elapsed + history[-1]["seconds"] > budget:
            stopped_by = "time budget"
            break
        epoch += 1
        t_epoch = time.perf_counter()
        with tqdm(total=num_batches, desc=f"epoch {epoch}", unit="batch", dynamic_ncols=True,
                  disable=not progress) as bar:
            train_loss, train_acc = train_epoch(model, optimizer, train.images, train.labels,
                                                cfg, generator, bar)
        val_loss, val_acc = evaluate(model, val.images, val.labels, cfg.eval_batch_size)
        row = {"epoch": epoch, "train_loss": train_loss, "train_acc": train_acc,
               "val_loss": val_loss, "val_acc": val_acc,
               "seconds": time.perf_counter() - t_epoch,
               "elapsed_seconds": time.perf_counter() - t0}
        history.append(row)
        if val_acc > best_acc:
            best_acc, best_state = val_acc, copy.deepcopy(model.state_dict())
        tqdm.write(f"epoch {epoch}: train loss {train_loss:.4f} acc {train_acc:.4f} | "
                   f"val loss {val_loss:.4f} acc {val_acc:.4f} | {row['seconds']:.1f} s",
                   file=sys.stderr)
    train_seconds = time.perf_counter() - t0
    assert best_state is not None  # at least one epoch ran
    model.load_state_dict(best_state)
    # Validated again with the restored weights: equals the best epoch's val_acc.
    _, best_val_acc = evaluate(model, val.images, val.labels, cfg.eval_batch_size)
    test_loss, test_acc = evaluate(model, test.images, test.labels, cfg.eval_batch_size)
    best = max(history, key=lambda r: r["val_acc"])  # first of equals, like the loop
    return {
        "epochs": history,
        "best_epoch": best["epoch"],
        "best_val_acc": best_val_acc,
        "test_loss": test_loss,
        "test_acc": test_acc,
        "parameters": count_parameters(model),
        "train_seconds": train_seconds,
        "stopped_by": stopped_by,
        "torch_threads": torch.get_num_threads(),
    }


# --------------------------------------------------------------------------- #
# Results
# --------------------------------------------------------------------------- #
def cpu_info() -> dict[str, Any]:
    """CPU model name, logical core count and the cores this process may use."""
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": name, "machine": platform.machine(), "cpu_count": os.cpu_count(),
            "usable_cores": usable}


def split_summary(data: dict[str, PathfinderBatch]) -> dict[str, Any]:
    """Size and fraction of positive labels of every split."""
    return {name: {"num_samples": int(b.labels.numel()),
                   "positive_fraction": (float(b.labels.float().mean())
                                         if b.labels.numel() else None)}
            for name, b in data.items()}


def run(cfg: CNNConfig, *, data_dir: Optional[str | os.PathLike] = None,
        out_dir: str | os.PathLike = "benchmarks/results", name: Optional[str] = None,
        command: Optional[str] = None, progress: bool = True) -> dict[str, Any]:
    """Load (or generate) the data, train, and write ``<out_dir>/<name>.json``
    (``name`` default: :func:`default_name` of ``cfg.resolution``).

    Returns:
        the dict written to the JSON file.
    """
    name = name if name is not None else default_name(cfg.resolution)
    stages = num_stages(cfg.resolution)
    started_at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    data = load_splits(cfg, data_dir=data_dir, progress=progress)
    data_seconds = time.perf_counter() - t0
    out = train_cnn(cfg, data, progress=progress)
    parameters, threads = out.pop("parameters"), out.pop("torch_threads")
    train_seconds = out.pop("train_seconds")
    result = {
        "name": name,
        "purpose": "data sanity check (a CNN on the 2-D images), not an LRA result",
        "command": command or shlex.join([sys.executable] + sys.argv),
        "started_at": started_at,
        "config": asdict(cfg),
        "data": {"generator_config": asdict(data_config(cfg)), "splits": split_summary(data)},
        "model": {"architecture": f"{stages} stages x 2 (conv3x3-BN-ReLU), maxpool 2 between "
                                  "stages, global average pool, linear",
                  "widths": list(cfg.widths), "stages": stages,
                  "stage_widths": list(cfg.widths) + [cfg.widths[-1]] * (stages - 3),
                  "receptive_field": receptive_field(stages), "parameters": parameters},
        **out,
        "elapsed_seconds": {"data": data_seconds, "train": train_seconds,
                            "total": time.perf_counter() - t0},
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "numpy": np.__version__},
        "hardware": {**cpu_info(), "torch_threads": threads},
    }
    path = Path(out_dir) / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"best epoch {result['best_epoch']}: val acc {result['best_val_acc']:.4f}, "
          f"test acc {result['test_acc']:.4f} -> {path}", file=sys.stderr)
    return result


def build_parser() -> argparse.ArgumentParser:
    d = CNNConfig()
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.lra.pathfinder_cnn",
        description="Train a small CNN on Pathfinder (32, 64 or 128 px) on the CPU to check "
                    "that the generated data is learnable (not an LRA result).")
    p.add_argument("--resolution", type=int, default=d.resolution, choices=RESOLUTIONS,
                   help="image side in pixels (default 32); one more conv stage per doubling")
    p.add_argument("--num-train", type=int, default=d.num_train,
                   help=f"training images (default {d.num_train})")
    p.add_argument("--num-eval", type=int,
                   help="validation and test images each (default: the standard 20K splits)")
    p.add_argument("--difficulty", default=d.difficulty, choices=("easy", "medium", "hard"),
                   help="contour length 6/9/14 (default hard)")
    p.add_argument("--data-seed", type=int, default=d.data_seed,
                   help="base seed of the generated splits (default 0, the Transformer runs')")
    p.add_argument("--epochs", type=int, help="number of epochs (default: until --max-minutes)")
    p.add_argument("--max-minutes", type=float,
                   help=f"wall-clock budget of training (default {DEFAULT_MAX_MINUTES:g} "
                        "without --epochs, none with it)")
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--weight-decay", type=float, default=d.weight_decay)
    p.add_argument("--widths", type=int, nargs=3, default=list(d.widths),
                   help="channels of the first three stages; extra stages at 64/128 px keep "
                        "the last (default 16 32 64)")
    p.add_argument("--no-augment", action="store_true", help="no random flips/transposes")
    p.add_argument("--seed", type=int, default=d.seed, help="init/order/augmentation seed")
    p.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                   help="torch threads for training (default: 2, or 1 on a 1-core machine)")
    p.add_argument("--data-dir", help="dataset cache (default: $SPARSEFLASH_DATA or "
                                      "~/.cache/sparseflash/lra)")
    p.add_argument("--out-dir", default="benchmarks/results",
                   help="results directory (default benchmarks/results)")
    p.add_argument("--name", help="results file stem (default lra-pathfinder{R}-cnn-cpu, "
                                  f"R the resolution: {DEFAULT_NAME} at 32 px)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    max_minutes = args.max_minutes
    if max_minutes is None and args.epochs is None:
        max_minutes = DEFAULT_MAX_MINUTES
    try:
        cfg = CNNConfig(resolution=args.resolution, difficulty=args.difficulty,
                      num_train=args.num_train, num_eval=args.num_eval, data_seed=args.data_seed,
                      widths=tuple(args.widths), batch_size=args.batch_size, lr=args.lr,
                      weight_decay=args.weight_decay, epochs=args.epochs,
                      max_minutes=max_minutes, augment=not args.no_augment, seed=args.seed,
                      threads=args.threads)
    except ValueError as exc:
        build_parser().error(str(exc))
    run(cfg, data_dir=args.data_dir, out_dir=args.out_dir, name=args.name,
        command=shlex.join(["python", "-m", "benchmarks.lra.pathfinder_cnn"] + argv),
        progress=not args.no_progress)
    return 0


if __name__ == "__main__":
    sys.exit(main())
