"""Build-or-load of generated dataset splits, cached on disk as ``.pt`` files.

A split is a ``dict[str, torch.Tensor]`` whose tensors all share the leading
sample dimension ``S``. It is generated in chunks (one progress-bar step per
chunk) and saved to ``<cache_dir>/<name>-<hash>.pt`` where ``hash`` digests every
parameter that influences the content, so changing a parameter never silently
reuses a stale file.

The cache directory is ``$SPARSEFLASH_DATA`` when that variable is set, else
``~/.cache/sparseflash/lra``.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

ENV_VAR = "SPARSEFLASH_DATA"
DEFAULT_CACHE_DIR = Path("~/.cache/sparseflash/lra")

#: Signature of a chunk builder: ``(num_samples, seed) -> dict of tensors``
#: with leading dimension ``num_samples``.
ChunkBuilder = Callable[[int, int], dict[str, torch.Tensor]]


def default_cache_dir() -> Path:
    """Return the cache directory: ``$SPARSEFLASH_DATA`` or ``~/.cache/sparseflash/lra``."""
    env = os.environ.get(ENV_VAR)
    return Path(env).expanduser() if env else DEFAULT_CACHE_DIR.expanduser()


def params_digest(params: Mapping[str, Any]) -> str:
    """Short stable hex digest of a JSON-serialisable parameter mapping."""
    try:
        blob = json.dumps(params, sort_keys=True, separators=(",", ":"))
    except TypeError as exc:
        raise TypeError(f"cache params must be JSON-serialisable: {exc}") from exc
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def cache_path(
    name: str, params: Mapping[str, Any], cache_dir: str | os.PathLike | None = None
) -> Path:
    """Path of the cache file for ``name`` generated with ``params``."""
    if not name or any(c in name for c in "/\\\0"):
        raise ValueError(f"invalid cache name {name!r}")
    root = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    return root / f"{name}-{params_digest(params)}.pt"


def derive_seed(seed: int, *keys: int) -> int:
    """Independent 63-bit seed for sub-stream ``keys`` (chunk index, split index...) of ``seed``.

    ``SeedSequence`` hashes the pair properly, so neighbouring chunks (and
    neighbouring base seeds) do not produce correlated streams.
    """
    if seed < 0 or any(k < 0 for k in keys):
        raise ValueError(f"seeds and keys must be non-negative, got {seed}, {keys}")
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(k) for k in keys))
    return int(ss.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def build_chunked(
    builder: ChunkBuilder,
    num_samples: int,
    *,
    seed: int,
    chunk_size: int,
    desc: str | None = None,
    progress: bool = True,
) -> dict[str, torch.Tensor]:
    """Generate ``num_samples`` samples in chunks of ``chunk_size`` and concatenate.

    Chunk ``i`` is built with ``builder(n_i, derive_seed(seed, i))``, so the result
    depends on ``(seed, chunk_size)`` but not on how often it was interrupted.

    Returns:
        dict of tensors with leading dimension ``num_samples``.
    """
    if num_samples < 0:
        raise ValueError(f"num_samples must be >= 0, got {num_samples}")
    if chunk_size <= 0:
        raise ValueError(f"chunk_size must be > 0, got {chunk_size}")
    parts: list[dict[str, torch.Tensor]] = []
    with tqdm(total=num_samples, desc=desc, unit="sample", disable=not progress) as bar:
        for i, start in enumerate(range(0, num_samples, chunk_size)):
            n = min(chunk_size, num_samples - start)
            part = builder(n, derive_seed(seed, i))
            for key, value in part.items():
                if value.shape[0] != n:
                    raise RuntimeError(
                        f"builder returned {key} with {value.shape[0]} rows, expected {n}"
                    )
            parts.append(part)
            bar.update(n)
    if not parts:
        # Build an empty chunk to learn the keys/dtypes/trailing shapes.
        return builder(0, derive_seed(seed, 0))
    return {key: torch.cat([p[key] for p in parts]) for key in parts[0]}


def build_or_load(
    name: str,
    builder: ChunkBuilder,
    num_samples: int,
    *,
    params: Mapping[str, Any],
    seed: int,
    chunk_size: int,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
    rebuild: bool = False,
) -> dict[str, torch.Tensor]:
    """Load split ``name`` from the cache, or generate it with ``builder`` and save it.

    Args:
        name: file-name prefix, e.g. ``"listops-train"``.
        builder: ``(n, seed) -> dict[str, Tensor]`` producing ``n`` samples.
        num_samples: split size ``S``.
        params: every other parameter that changes the content (sequence
            lengths, generator version...); it is hashed into the file name.
        seed: base seed of the split; chunk seeds derive from it.
        chunk_size: samples per generated chunk (one progress-bar step).
        cache_dir: overrides :func:`default_cache_dir`.
        progress: show a tqdm bar while generating.
        rebuild: ignore an existing file and regenerate it.

    Returns:
        dict of tensors with leading dimension ``S``.
    """
    full_params = {
        **params,
        "name": name,
        "num_samples": int(num_samples),
        "seed": int(seed),
        "chunk_size": int(chunk_size),
    }
    path = cache_path(name, full_params, cache_dir)
    if path.exists() and not rebuild:
        try:
            blob = torch.load(path, map_location="cpu", weights_only=True)
        except Exception:  # truncated/corrupted/foreign file: regenerate it below
            blob = None
        if isinstance(blob, dict) and blob.get("params") == params_digest(full_params):
            return blob["data"]
    data = build_chunked(
        builder, num_samples, seed=seed, chunk_size=chunk_size, desc=name, progress=progress
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write to a temporary file then rename, so an interrupted run (or two
    # concurrent runs) never leaves a truncated file under the final name.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        torch.save({"params": params_digest(full_params), "data": data}, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return data
