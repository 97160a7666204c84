"""ListOps: classify the value (0-9) of a long nested prefix expression.

Generator (same random process as the Long Range Arena task):

* a node at depth ``d`` (the root has depth 1) is an operator with probability
  0.25 when ``d < max_depth``, otherwise a value drawn uniformly from 0-9;
* an operator is drawn uniformly from MIN, MAX, MED (median, truncated to int)
  and SM (sum modulo 10) and gets 2 to ``max_args`` (inclusive) arguments;
* the *token length* of a tree is ``#operators * 2 + #values`` (an operator
  opens with ``[OP`` and closes with ``]``); only trees with
  ``min_len < length < max_len`` (strict) are kept, by rejection sampling.

Vocabulary (``VOCAB[i]`` is the string of token id ``i``)::

    0        <pad>
    1 .. 10  the digits "0" .. "9"         (id = digit + 1)
    11       "[MIN"
    12       "[MAX"
    13       "[MED"
    14       "[SM"
    15       "]"

so ``"[MAX 2 9 [MIN 4 7 ] 0 ]"`` is ``[12, 3, 10, 11, 5, 8, 15, 1, 15]`` and
evaluates to 9. The parentheses of LRA's TSV files carry no information and are
not tokens (:func:`tokenize` drops them).

Speed: candidate trees are grown breadth-first for a whole batch of trees at
once with numpy (one vectorised step per depth level); trees that already reach
``max_len`` stop growing, and the accepted ones are evaluated bottom-up and
serialised top-down with segment reductions, so no Python loop runs per node.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch

from .cache import build_or_load, derive_seed

PAD = 0
DIGIT_OFFSET = 1
OPERATORS: tuple[str, ...] = ("MIN", "MAX", "MED", "SM")
OP_OFFSET = 11
CLOSE = 15
VOCAB: tuple[str, ...] = (
    ("<pad>",) + tuple(str(d) for d in range(10)) + tuple(f"[{op}" for op in OPERATORS) + ("]",)
)
VOCAB_SIZE = len(VOCAB)  # 16
NUM_CLASSES = 10
OP_PROB = 0.25

# Candidate trees grown per vectorised round. Fixed (not derived from
# ``num_samples``) so that a longer run with the same seed starts with exactly
# the samples of a shorter one. About 8% of candidates land in (500, 2000).
_ROUND_CANDIDATES = 4096
# Safety net against configurations that (almost) never produce a valid tree.
_MAX_EMPTY_ROUNDS = 200

_TOKEN_OF = {s: i for i, s in enumerate(VOCAB) if i != PAD}
GENERATOR_VERSION = 1


class ListOpsBatch(NamedTuple):
    """A batch of ListOps samples.

    Attributes:
        tokens: LongTensor ``(S, seq_len)``, token ids, right-padded with ``PAD``.
        labels: LongTensor ``(S,)``, value of the expression, in ``[0, 10)``.
        lengths: LongTensor ``(S,)``, number of non-pad tokens of each row;
            the padding mask is ``arange(seq_len) < lengths[:, None]``.
    """

    tokens: torch.Tensor
    labels: torch.Tensor
    lengths: torch.Tensor


# --------------------------------------------------------------------------- #
# Reference (pure Python) tokenisation and evaluation, used by tests/debugging.
# --------------------------------------------------------------------------- #
def tokenize(expression: str) -> list[int]:
    """Token ids of a whitespace-separated expression such as ``"[SM 1 [MIN 3 4 ] ]"``.

    ``"("`` and ``")"`` (present in LRA's TSV files) are ignored.
    """
    ids = []
    for word in expression.split():
        if word in ("(", ")"):
            continue
        if word not in _TOKEN_OF:
            raise ValueError(f"unknown ListOps token {word!r}")
        ids.append(_TOKEN_OF[word])
    return ids


def detokenize(tokens: Sequence[int] | torch.Tensor) -> str:
    """Inverse of :func:`tokenize`; stops at the first ``PAD``."""
    words = []
    for t in (tokens.tolist() if isinstance(tokens, torch.Tensor) else tokens):
        if t == PAD:
            break
        if not 0 < t < VOCAB_SIZE:
            raise ValueError(f"invalid token id {t}")
        words.append(VOCAB[t])
    return " ".join(words)


def apply_operator(op: str, args: Sequence[int]) -> int:
    """Value of ``op`` (one of :data:`OPERATORS`) applied to ``args``."""
    if not args:
        raise ValueError(f"{op} needs at least one argument")
    if op == "MIN":
        return min(args)
    if op == "MAX":
        return max(args)
    if op == "MED":
        return int(statistics.median(args))  # mean of the two middle values if even, truncated
    if op == "SM":
        return sum(args) % 10
    raise ValueError(f"unknown operator {op!r}")


def evaluate_tokens(tokens: Sequence[int] | torch.Tensor) -> int:
    """Evaluate one token sequence (trailing ``PAD`` allowed) with an explicit stack.

    Raises:
        ValueError: if the sequence is not exactly one well-formed expression.
    """
    seq = tokens.tolist() if isinstance(tokens, torch.Tensor) else list(tokens)
    stack: list[tuple[str, list[int]]] = []
    result: int | None = None
    for i, t in enumerate(seq):
        if t == PAD:
            if any(x != PAD for x in seq[i:]):
                raise ValueError("non-pad token after padding")
            break
        if result is not None:
            raise ValueError("tokens after the end of the expression")
        if DIGIT_OFFSET <= t < DIGIT_OFFSET + 10:
            value: int | None = t - DIGIT_OFFSET
        elif OP_OFFSET <= t < OP_OFFSET + len(OPERATORS):
            stack.append((OPERATORS[t - OP_OFFSET], []))
            value = None
        elif t == CLOSE:
            if not stack:
                raise ValueError("unbalanced ']'")
            op, args = stack.pop()
            value = apply_operator(op, args)
        else:
            raise ValueError(f"invalid token id {t}")
        if value is not None:
            if stack:
                stack[-1][1].append(value)
            else:
                result = value
    if stack or result is None:
        raise ValueError("incomplete expression")
    return result


# --------------------------------------------------------------------------- #
# Vectorised generator.
# --------------------------------------------------------------------------- #
def max_tree_length(max_depth: int, max_args: int) -> int:
    """Largest token length the generator can produce (full ``max_args``-ary tree)."""
    length = 1  # a value at depth max_depth
    for _ in range(max_depth - 1):
        length = 2 + max_args * length
    return length


class _Level(NamedTuple):
    tree: np.ndarray  # (m,) candidate-tree index of each node
    parent: np.ndarray  # (m,) index of the parent in the previous level (-1 for roots)
    is_op: np.ndarray  # (m,) bool
    symbol: np.ndarray  # (m,) operator index 0-3 or digit 0-9
    nargs: np.ndarray  # (m,) number of children (0 for values)


def _grow_forest(
    rng: np.random.Generator, n: int, max_depth: int, max_args: int, max_len: int
) -> tuple[list[_Level], np.ndarray, np.ndarray]:
    """Grow ``n`` candidate trees breadth-first, all at once.

    Returns:
        levels: per depth, the nodes of every tree at that depth; children of a
            node are contiguous and ordered like their parents.
        size: ``(n,)`` token length (exact for trees still alive).
        alive: ``(n,)`` False for trees pruned because they reach ``max_len``.
    """
    levels: list[_Level] = []
    tree = np.arange(n)
    parent = np.full(n, -1)
    size = np.zeros(n, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    depth = 1
    while tree.size:
        m = tree.size
        is_op = rng.random(m) < OP_PROB if depth < max_depth else np.zeros(m, dtype=bool)
        n_ops = int(is_op.sum())
        symbol = rng.integers(0, 10, size=m)
        symbol[is_op] = rng.integers(0, len(OPERATORS), size=n_ops)
        nargs = np.zeros(m, dtype=np.int64)
        nargs[is_op] = rng.integers(2, max_args + 1, size=n_ops)
        levels.append(_Level(tree, parent, is_op, symbol, nargs))
        # Tokens added by this level (2 per operator, 1 per value) plus one per
        # child still to be grown: a lower bound on the final length, so trees
        # that are already too long are pruned before growing further.
        size += np.bincount(tree, weights=1 + is_op, minlength=n).astype(np.int64)
        pending = np.bincount(tree, weights=nargs, minlength=n).astype(np.int64)
        alive &= size + pending < max_len
        expand = np.flatnonzero(is_op & alive[tree])
        counts = nargs[expand]
        tree = np.repeat(tree[expand], counts)
        parent = np.repeat(expand, counts)
        depth += 1
    return levels, size, alive


def _serialise(
    levels: list[_Level], keep: np.ndarray, seq_len: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Evaluate and tokenise the trees flagged in ``keep`` (in tree order).

    Returns:
        tokens ``(K, seq_len)`` int64, labels ``(K,)``, lengths ``(K,)`` where ``K = keep.sum()``.
    """
    row_of_tree = np.cumsum(keep) - 1
    # Restrict every level to kept trees and re-index parents accordingly.
    kept: list[_Level] = []
    prev_new_index: np.ndarray | None = None
    for lvl in levels:
        mask = keep[lvl.tree]
        parent = lvl.parent[mask]
        if prev_new_index is not None:
            parent = prev_new_index[parent]
        kept.append(
            _Level(lvl.tree[mask], parent, lvl.is_op[mask], lvl.symbol[mask], lvl.nargs[mask])
        )
        prev_new_index = np.cumsum(mask) - 1
    while kept and kept[-1].tree.size == 0:
        kept.pop()

    # Bottom-up: value and token length of every node.
    values: list[np.ndarray] = [np.empty(0, np.int64)] * len(kept)
    tsize: list[np.ndarray] = [np.empty(0, np.int64)] * len(kept)
    starts: list[np.ndarray] = [np.empty(0, np.int64)] * len(kept)
    for d in range(len(kept) - 1, -1, -1):
        lvl = kept[d]
        val = lvl.symbol.astype(np.int64)  # correct for values; operators overwritten below
        ts = np.ones(lvl.tree.size, dtype=np.int64)
        ops = np.flatnonzero(lvl.is_op)
        if ops.size:
            child = kept[d + 1]
            cv, cs = values[d + 1], tsize[d + 1]
            counts = lvl.nargs[ops]
            st = np.concatenate(([0], np.cumsum(counts)[:-1]))
            starts[d] = st
            # Median: sort children by (parent, value); segments stay contiguous.
            sorted_cv = cv[np.lexsort((cv, child.parent))]
            med = (sorted_cv[st + (counts - 1) // 2] + sorted_cv[st + counts // 2]) // 2
            results = np.stack(
                [
                    np.minimum.reduceat(cv, st),
                    np.maximum.reduceat(cv, st),
                    med,
                    np.add.reduceat(cv, st) % 10,
                ]
            )  # (4, n_ops), rows in OPERATORS order
            val[ops] = results[lvl.symbol[ops], np.arange(ops.size)]
            ts[ops] = 2 + np.add.reduceat(cs, st)
        values[d], tsize[d] = val, ts

    n_keep = int(keep.sum())
    tokens = np.zeros((n_keep, seq_len), dtype=np.int64)
    if n_keep == 0:
        return tokens, np.zeros(0, np.int64), np.zeros(0, np.int64)
    # Top-down: position of every node = parent position + 1 + token lengths
    # of its earlier siblings (exclusive cumsum within each sibling segment).
    pos = np.zeros(kept[0].tree.size, dtype=np.int64)
    for d, lvl in enumerate(kept):
        rows = row_of_tree[lvl.tree]
        op = lvl.is_op
        tokens[rows[~op], pos[~op]] = lvl.symbol[~op] + DIGIT_OFFSET
        tokens[rows[op], pos[op]] = lvl.symbol[op] + OP_OFFSET
        tokens[rows[op], pos[op] + tsize[d][op] - 1] = CLOSE
        if d + 1 < len(kept):
            ops = np.flatnonzero(op)
            counts = lvl.nargs[ops]
            cs = tsize[d + 1]
            excl = np.cumsum(cs) - cs
            within = excl - np.repeat(excl[starts[d]], counts)
            pos = np.repeat(pos[ops] + 1, counts) + within
    return tokens, values[0], tsize[0]


def _check_params(
    num_samples: int, min_len: int, max_len: int, seq_len: int, max_depth: int, max_args: int
) -> None:
    if num_samples < 0:
        raise ValueError(f"num_samples must be >= 0, got {num_samples}")
    if max_depth < 1 or max_args < 2:
        raise ValueError(f"need max_depth >= 1 and max_args >= 2, got {max_depth}, {max_args}")
    if min_len < 0 or max_len - min_len < 2:
        raise ValueError(
            "need 0 <= min_len and an integer strictly between min_len and max_len, "
            f"got ({min_len}, {max_len})"
        )
    if seq_len < max_len - 1:
        raise ValueError(f"seq_len ({seq_len}) must be >= max_len - 1 ({max_len - 1})")
    if min_len + 1 > max_tree_length(max_depth, max_args):
        raise ValueError(
            f"min_len={min_len} is unreachable: trees with max_depth={max_depth}, "
            f"max_args={max_args} have at most {max_tree_length(max_depth, max_args)} tokens"
        )


def generate_listops(
    num_samples: int,
    *,
    min_len: int = 500,
    max_len: int = 2000,
    seed: int,
    max_depth: int = 10,
    max_args: int = 10,
    seq_len: int | None = None,
) -> ListOpsBatch:
    """Generate ``num_samples`` ListOps expressions with ``min_len < length < max_len``.

    Args:
        num_samples: ``S``.
        min_len, max_len: exclusive bounds on the token length.
        seed: seed of the ``numpy.random.Generator``; same arguments give the
            same samples, and a longer run starts with the samples of a shorter one.
        max_depth: operators only appear at depth ``< max_depth`` (root: depth 1).
        max_args: operators take 2 to ``max_args`` arguments.
        seq_len: padded width (default ``max_len``).

    Returns:
        :class:`ListOpsBatch` with ``tokens (S, seq_len)``, ``labels (S,)``, ``lengths (S,)``.
    """
    seq_len = max_len if seq_len is None else seq_len
    _check_params(num_samples, min_len, max_len, seq_len, max_depth, max_args)
    rng = np.random.default_rng(seed)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    have, empty_rounds = 0, 0
    while have < num_samples:
        levels, size, alive = _grow_forest(rng, _ROUND_CANDIDATES, max_depth, max_args, max_len)
        keep = alive & (size > min_len) & (size < max_len)
        n_keep = int(keep.sum())
        if n_keep == 0:
            empty_rounds += 1
            if empty_rounds >= _MAX_EMPTY_ROUNDS:
                raise RuntimeError(
                    f"no tree with {min_len} < length < {max_len} in "
                    f"{empty_rounds * _ROUND_CANDIDATES} candidates; "
                    "widen the length bounds or increase max_depth/max_args"
                )
            continue
        empty_rounds = 0
        if have + n_keep > num_samples:
            # Serialise only what is needed (keeps the earliest candidates).
            keep &= np.cumsum(keep) <= num_samples - have
        part = _serialise(levels, keep, seq_len)
        parts.append(part)
        have += part[1].size
    if parts:
        tokens, labels, lengths = (np.concatenate(x) for x in zip(*parts))
    else:
        tokens, labels, lengths = (
            np.zeros((0, seq_len), np.int64),
            np.zeros(0, np.int64),
            np.zeros(0, np.int64),
        )
    return ListOpsBatch(
        torch.from_numpy(tokens), torch.from_numpy(labels), torch.from_numpy(lengths)
    )


# --------------------------------------------------------------------------- #
# Cached splits.
# --------------------------------------------------------------------------- #
SPLITS: tuple[str, ...] = ("train", "val", "test")


@dataclass(frozen=True)
class ListOpsConfig:
    """Sizes and generator parameters of the ListOps splits (defaults: LRA)."""

    num_train: int = 96_000
    num_val: int = 2_000
    num_test: int = 2_000
    min_len: int = 500
    max_len: int = 2000
    seq_len: int = 2000
    max_depth: int = 10
    max_args: int = 10
    seed: int = 0
    chunk_size: int = 2_000

    def num_samples(self, split: str) -> int:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
        return {"train": self.num_train, "val": self.num_val, "test": self.num_test}[split]


def load_listops(
    split: str,
    config: ListOpsConfig = ListOpsConfig(),
    *,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> ListOpsBatch:
    """Load one split (``"train"``, ``"val"`` or ``"test"``), generating and caching it if needed.

    Each split uses its own seed derived from ``config.seed``.

    Returns:
        :class:`ListOpsBatch`: ``tokens (S, config.seq_len)`` uint8 (16 token ids; the train
        split is 192 MB instead of 1.5 GB as int64), ``labels (S,)``, ``lengths (S,)``.
    """
    n = config.num_samples(split)
    gen_kwargs = dict(
        min_len=config.min_len,
        max_len=config.max_len,
        seq_len=config.seq_len,
        max_depth=config.max_depth,
        max_args=config.max_args,
    )
    _check_params(
        n, config.min_len, config.max_len, config.seq_len, config.max_depth, config.max_args
    )

    def builder(num: int, seed: int) -> dict[str, torch.Tensor]:
        batch = generate_listops(num, seed=seed, **gen_kwargs)
        # Stored as uint8 (16 token ids): the default train split is 190 MB
        # on disk instead of 1.5 GB.
        return {**batch._asdict(), "tokens": batch.tokens.to(torch.uint8)}

    data = build_or_load(
        f"listops-{split}",
        builder,
        n,
        # Only what shapes the samples: split sizes of *other* splits must not
        # invalidate this one. (num_samples, seed, chunk_size are added by build_or_load.)
        params={**gen_kwargs, "base_seed": config.seed, "version": GENERATOR_VERSION},
        seed=derive_seed(config.seed, SPLITS.index(split)),
        chunk_size=config.chunk_size,
        cache_dir=cache_dir,
        progress=progress,
    )
    return ListOpsBatch(data["tokens"], data["labels"], data["lengths"])


def load_listops_splits(
    config: ListOpsConfig = ListOpsConfig(),
    *,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> dict[str, ListOpsBatch]:
    """All three splits, keyed by ``"train"``, ``"val"``, ``"test"``."""
    return {s: load_listops(s, config, cache_dir=cache_dir, progress=progress) for s in SPLITS}
