"""Byte n-gram logistic regression on the BBC News text task: the bar a Transformer must clear.

``python -m benchmarks.lra.baseline`` reads the same splits and the same truncation as the
text task (:func:`benchmarks.lra.text.load_bbc_news_splits`, 4096 bytes, seed 0), and

1. counts the byte 1-, 2- and 3-grams of every article, hashing each n-gram into one of
   ``num_features`` buckets (``(id * A mod P) mod F`` with a large prime ``P``, where ``id``
   numbers every n-gram of every order uniquely);
2. weights the counts tf-idf style, ``log(1 + count) * idf`` with the smoothed
   ``idf = log((1 + D) / (1 + df)) + 1`` computed on the training articles, and scales every
   row to unit L2 norm;
3. fits a multinomial logistic regression (L-BFGS, full batch, L2 penalty) for each penalty in
   a small grid, keeps the one with the best validation accuracy, and reports its test
   accuracy.

Everything is torch (sparse features, CSR products); scikit-learn is not needed.
The result goes to ``<out-dir>/lra-text-baseline-ngram-cpu.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import sys
import time
import warnings
from pathlib import Path
from typing import Optional, Sequence

import torch
import torch.nn.functional as F

_PRIME = 2_147_483_647  # 2^31 - 1
_MULTIPLIER = 1_103_515_245  # odd; id * A < 2^25 * 2^31 fits in int64
DEFAULT_L2 = (1e-5, 1e-4, 1e-3)


def ngram_counts(tokens: torch.Tensor, lengths: torch.Tensor, *, max_n: int = 3,
                 num_features: int = 1 << 18, chunk: int = 128) -> torch.Tensor:
    """Hashed byte n-gram counts.

    Args:
        tokens: ``(D, L)`` int, byte + 1 with 0 = padding (the text task's encoding).
        lengths: ``(D,)`` number of bytes of each row.
        max_n: n-grams of orders 1..max_n (``max_n <= 3`` keeps ids below 2^25).
        num_features: hash buckets ``F``.
        chunk: rows processed at once (bounds memory to ``chunk * L * max_n`` ids).

    Returns:
        coalesced sparse COO ``(D, F)`` float32 of counts.
    """
    if not 1 <= max_n <= 3:
        raise ValueError(f"max_n must be 1, 2 or 3, got {max_n}")
    if num_features < 2:
        raise ValueError(f"num_features must be >= 2, got {num_features}")
    if tokens.dim() != 2 or lengths.shape != tokens.shape[:1]:
        raise ValueError(f"need tokens (D, L) and lengths (D,), got {tuple(tokens.shape)} and "
                         f"{tuple(lengths.shape)}")
    D, L = tokens.shape
    keys, counts = [], []
    for start in range(0, D, chunk):
        b = (tokens[start:start + chunk].long() - 1).clamp(min=0)  # bytes 0..255
        n_rows = b.shape[0]
        lens = lengths[start:start + chunk].long()
        parts = []
        offset = 0  # ids of order n start after all ids of lower orders
        for n in range(1, max_n + 1):
            width = L - n + 1
            if width > 0:
                gram = torch.zeros(n_rows, width, dtype=torch.long)
                for k in range(n):
                    gram += b[:, k:k + width] << (8 * k)
                valid = torch.arange(width)[None, :] + n <= lens[:, None]
                bucket = ((gram + offset) * _MULTIPLIER % _PRIME) % num_features
                row = torch.arange(start, start + n_rows)[:, None].expand(-1, width)
                parts.append((row[valid] * num_features + bucket[valid]))
            offset += 256 ** n
        if parts:
            key, count = torch.unique(torch.cat(parts), return_counts=True)
            keys.append(key)
            counts.append(count)
    key = torch.cat(keys) if keys else torch.zeros(0, dtype=torch.long)
    count = torch.cat(counts) if counts else torch.zeros(0, dtype=torch.long)
    idx = torch.stack([key // num_features, key % num_features])
    return torch.sparse_coo_tensor(idx, count.float(), (D, num_features),
                                   check_invariants=False).coalesce()


def tfidf(counts: torch.Tensor, idf: torch.Tensor) -> torch.Tensor:
    """``log(1 + count) * idf[feature]``, each row scaled to unit L2 norm: sparse ``(D, F)``."""
    idx, val = counts.indices(), counts.values()
    val = torch.log1p(val) * idf[idx[1]]
    norms = torch.zeros(counts.shape[0]).index_add_(0, idx[0], val * val).sqrt().clamp(min=1e-12)
    return torch.sparse_coo_tensor(idx, val / norms[idx[0]], counts.shape,
                                   check_invariants=False).coalesce()


def inverse_document_frequency(train_counts: torch.Tensor) -> torch.Tensor:
    """Smoothed ``idf = log((1 + D) / (1 + df)) + 1`` from training counts ``(D, F)``."""
    D, F_ = train_counts.shape
    df = torch.bincount(train_counts.indices()[1], minlength=F_).float()
    return torch.log((1.0 + D) / (1.0 + df)) + 1.0


class _SparseRows:
    """A sparse ``(D, F)`` matrix in CSR, with its transpose, for fast products both ways
    (a COO product and its backward are several times slower on the CPU)."""

    def __init__(self, x: torch.Tensor):
        with warnings.catch_warnings():  # "sparse CSR support is in beta"
            warnings.simplefilter("ignore", UserWarning)
            self.x = x.to_sparse_csr()
            self.xt = x.t().coalesce().to_sparse_csr()
        self.shape = x.shape


class _Product(torch.autograd.Function):
    """``x @ w`` for sparse ``x`` and dense ``w``, differentiable in ``w`` only."""

    @staticmethod
    def forward(ctx, w: torch.Tensor, rows: _SparseRows) -> torch.Tensor:  # type: ignore[override]
        ctx.rows = rows
        return rows.x @ w

    @staticmethod
    def backward(ctx, grad: torch.Tensor):  # type: ignore[override]
        return ctx.rows.xt @ grad, None


def fit_logistic(x: torch.Tensor, y: torch.Tensor, num_classes: int, *, l2: float,
                 max_iter: int = 100) -> tuple[torch.Tensor, torch.Tensor]:
    """Multinomial logistic regression: minimise ``mean CE(x W + b, y) + l2/2 ||W||^2``.

    Args:
        x: sparse ``(D, F)``; y: ``(D,)`` int64.

    Returns:
        ``W (F, C)``, ``b (C,)``.
    """
    rows = _SparseRows(x)
    w = torch.zeros(x.shape[1], num_classes, requires_grad=True)
    b = torch.zeros(num_classes, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], lr=1.0, max_iter=max_iter, history_size=20,
                            line_search_fn="strong_wolfe", tolerance_grad=1e-6)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = F.cross_entropy(_Product.apply(w, rows) + b, y) + 0.5 * l2 * (w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return w.detach(), b.detach()


def accuracy(x: torch.Tensor, y: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> float:
    with torch.no_grad():
        return (_Product.apply(w, _SparseRows(x)) + b).argmax(-1).eq(y).float().mean().item()


def run_baseline(*, seq_len: int = 4096, max_n: int = 3, num_features: int = 1 << 18,
                 l2_grid: Sequence[float] = DEFAULT_L2, max_iter: int = 100,
                 num_train: Optional[int] = None, split_seed: int = 0) -> dict:
    """Fit on the training split, choose the L2 penalty on validation, score the test split.

    ``num_train`` keeps a seeded random subset of the training articles (for quick checks).
    Returns the results dict (accuracies, settings, timings).
    """
    from .text import NUM_CLASSES, load_bbc_news_splits

    if not l2_grid or any(v < 0 for v in l2_grid):
        raise ValueError(f"l2 grid must be non-empty and non-negative, got {list(l2_grid)}")
    t0 = time.perf_counter()
    splits = load_bbc_news_splits(seq_len=seq_len, seed=split_seed)
    train = splits["train"]
    if num_train is not None:
        if num_train < NUM_CLASSES:
            raise ValueError(f"num_train must be >= {NUM_CLASSES}, got {num_train}")
        g = torch.Generator().manual_seed(split_seed + 1)
        keep = torch.randperm(train.labels.numel(), generator=g)[:num_train].sort().values
        train = type(train)(train.tokens[keep], train.labels[keep], train.lengths[keep])
    counts = {name: ngram_counts(s.tokens, s.lengths, max_n=max_n, num_features=num_features)
              for name, s in (("train", train), ("val", splits["val"]), ("test", splits["test"]))}
    idf = inverse_document_frequency(counts["train"])
    x = {name: tfidf(c, idf) for name, c in counts.items()}
    y = {"train": train.labels, "val": splits["val"].labels, "test": splits["test"].labels}
    t_features = time.perf_counter() - t0

    sweep = []
    best = None
    for l2 in l2_grid:
        w, b = fit_logistic(x["train"], y["train"], NUM_CLASSES, l2=l2, max_iter=max_iter)
        row = {"l2": l2, "train_acc": accuracy(x["train"], y["train"], w, b),
               "val_acc": accuracy(x["val"], y["val"], w, b)}
        sweep.append(row)
        if best is None or row["val_acc"] > best[0]["val_acc"]:
            best = (row, w, b)
    assert best is not None  # l2_grid is non-empty (checked above)
    row, w, b = best
    return {
        "task": "text", "method": "byte n-gram tf-idf + logistic regression (torch, L-BFGS)",
        "test_acc": accuracy(x["test"], y["test"], w, b), "val_acc": row["val_acc"],
        "train_acc": row["train_acc"], "l2": row["l2"], "sweep": sweep,
        "settings": {"seq_len": seq_len, "max_n": max_n, "num_features": num_features,
                     "max_iter": max_iter, "l2_grid": list(l2_grid), "split_seed": split_seed,
                     "num_train": int(y["train"].numel()), "num_val": int(y["val"].numel()),
                     "num_test": int(y["test"].numel()),
                     "nnz_per_article": round(counts["train"].values().numel()
                                              / max(y["train"].numel(), 1), 1)},
        "seconds": {"features": round(t_features, 2),
                    "total": round(time.perf_counter() - t0, 2)},
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.lra.baseline",
                                description="Byte n-gram logistic-regression baseline for the "
                                            "BBC News byte-level text task.")
    p.add_argument("--seq-len", type=int, default=4096, help="bytes kept per article (4096)")
    p.add_argument("--max-n", type=int, default=3, help="largest n-gram order, 1-3 (3)")
    p.add_argument("--num-features", type=int, default=1 << 18, help="hash buckets (262144)")
    p.add_argument("--l2", type=float, nargs="+", default=list(DEFAULT_L2),
                   help="L2 penalties to try; the best on validation is kept")
    p.add_argument("--max-iter", type=int, default=100, help="L-BFGS iterations (100)")
    p.add_argument("--num-train", type=int, help="use a random subset of the training articles")
    p.add_argument("--split-seed", type=int, default=0, help="seed of the train/val/test split")
    p.add_argument("--out-dir", default="benchmarks/results", help="results directory")
    p.add_argument("--name", default="lra-text-baseline-ngram-cpu", help="results file stem")
    argv = list(sys.argv[1:] if argv is None else argv)
    args = p.parse_args(argv)
    for flag, value, low in (("--seq-len", args.seq_len, 1),
                             ("--num-features", args.num_features, 2),
                             ("--max-iter", args.max_iter, 1)):
        if value < low:
            p.error(f"{flag} must be >= {low}, got {value}")
    if not 1 <= args.max_n <= 3:
        p.error(f"--max-n must be 1, 2 or 3, got {args.max_n}")
    try:
        result = run_baseline(seq_len=args.seq_len, max_n=args.max_n,
                              num_features=args.num_features, l2_grid=args.l2,
                              max_iter=args.max_iter, num_train=args.num_train,
                              split_seed=args.split_seed)
    except ValueError as exc:
        p.error(str(exc))
    result.update(
        command=shlex.join(["python", "-m", "benchmarks.lra.baseline"] + argv),
        versions={"python": platform.python_version(), "torch": torch.__version__},
        hardware={"name": "cpu", "cpu": platform.processor() or platform.machine(),
                  "torch_threads": torch.get_num_threads()},
    )
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{args.name}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"byte n-gram baseline: val acc {result['val_acc']:.4f} (l2={result['l2']:g}), "
          f"test acc {result['test_acc']:.4f} on {result['settings']['num_test']} articles; "
          f"{result['seconds']['total']:.1f} s -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
