"""Tests of the Pathfinder CNN sanity check (benchmarks/lra/pathfinder_cnn.py).

Everything runs on the CPU on a few hundred generated 32 px images; the file takes a few
seconds. Too little data to learn the task, so nothing here depends on accuracy.
"""

from __future__ import annotations

import json
import math

import pytest
import torch

from benchmarks.lra import pathfinder, pathfinder_cnn
from benchmarks.lra.pathfinder_cnn import CNNConfig, PathfinderCNN, random_dihedral

from layout_brute import one_torch_thread  # noqa: F401,E402  (autouse: one CPU thread)

NUM_TRAIN, NUM_EVAL = 256, 64


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("data")


@pytest.fixture(scope="module")
def cli_result(data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    argv = ["--num-train", str(NUM_TRAIN), "--num-eval", str(NUM_EVAL), "--epochs", "1",
            "--batch-size", "64", "--threads", "1", "--data-dir", str(data_dir),
            "--out-dir", str(out), "--name", "cnn", "--no-progress"]
    assert pathfinder_cnn.main(argv) == 0
    return argv, json.loads((out / "cnn.json").read_text())


def test_model_shapes_and_size():
    model = PathfinderCNN((16, 32, 64))
    assert model(torch.rand(3, 1, 32, 32)).shape == (3, 2)
    assert pathfinder_cnn.count_parameters(model) < 100_000  # "small": trains on 2 CPU cores


def test_random_dihedral_permutes_pixels_of_each_image():
    x = torch.rand(64, 1, 32, 32)
    y = random_dihedral(x, torch.Generator().manual_seed(0))
    assert y.shape == x.shape
    # Each image keeps its own pixels (a symmetry moves them, never mixes images)...
    torch.testing.assert_close(y.flatten(1).sort(dim=1).values, x.flatten(1).sort(dim=1).values)
    # ...and with 64 draws out of 8 symmetries, some images did change.
    assert not torch.equal(x, y)


def test_cli_run_writes_the_result_json(cli_result, data_dir):
    argv, result = cli_result
    assert set(result) == {
        "name", "purpose", "command", "started_at", "config", "data", "model", "epochs",
        "best_epoch", "best_val_acc", "test_loss", "test_acc", "stopped_by", "elapsed_seconds",
        "versions", "hardware"}
    assert result["command"] == " ".join(["python", "-m", "benchmarks.lra.pathfinder_cnn"] + argv)
    cfg = result["config"]
    assert cfg["num_train"] == NUM_TRAIN and cfg["num_eval"] == NUM_EVAL
    assert cfg["epochs"] == 1 and cfg["max_minutes"] is None  # --epochs alone: no time budget
    assert cfg["difficulty"] == "hard" and cfg["threads"] == 1
    splits = result["data"]["splits"]
    assert {k: v["num_samples"] for k, v in splits.items()} == {
        "train": NUM_TRAIN, "val": NUM_EVAL, "test": NUM_EVAL}
    assert result["data"]["generator_config"]["resolution"] == 32
    assert len(list(data_dir.glob("pathfinder32-hard-*.pt"))) == 3  # cached by the loader
    assert result["model"]["parameters"] == pathfinder_cnn.count_parameters(PathfinderCNN())

    (row,) = result["epochs"]
    assert row["epoch"] == 1 and row["seconds"] > 0
    assert math.isfinite(row["train_loss"]) and math.isfinite(row["val_loss"])
    assert row["train_loss"] > 0 and math.isfinite(result["test_loss"])
    for key in ("train_acc", "val_acc"):
        assert 0 <= row[key] <= 1
    # Accuracies are fractions of whole images.
    assert (row["val_acc"] * NUM_EVAL) == pytest.approx(round(row["val_acc"] * NUM_EVAL))
    assert (result["test_acc"] * NUM_EVAL) == pytest.approx(round(result["test_acc"] * NUM_EVAL))
    assert result["best_epoch"] == 1 and result["best_val_acc"] == row["val_acc"]
    assert result["stopped_by"] == "epochs"
    elapsed = result["elapsed_seconds"]
    assert 0 < elapsed["train"] <= elapsed["total"]
    assert result["versions"]["torch"] == torch.__version__
    assert result["hardware"]["cpu"] and result["hardware"]["torch_threads"] == 1
    assert torch.get_num_threads() == 1  # the run restored the thread count


def test_the_best_validation_weights_are_tested(data_dir, monkeypatch):
    # On this little data the real accuracy hardly moves, so the validation scores are
    # scripted per set of weights: epoch 2 is the best, and scoring the restored weights
    # again tells which epoch they come from.
    real_evaluate = pathfinder_cnn.evaluate
    script, seen = [0.6, 0.9, 0.7, 0.8], {}

    def scripted(model, images, labels, batch_size):
        loss, _ = real_evaluate(model, images, labels, batch_size)
        key = torch.cat([p.detach().flatten() for p in model.parameters()]).numpy().tobytes()
        if key not in seen:
            seen[key] = script[len(seen)] if len(seen) < len(script) else 0.0
        return loss, seen[key]

    monkeypatch.setattr(pathfinder_cnn, "evaluate", scripted)
    cfg = CNNConfig(num_train=NUM_TRAIN, num_eval=NUM_EVAL, epochs=4, max_minutes=None,
                    batch_size=64, threads=1)
    data = pathfinder_cnn.load_splits(cfg, data_dir=data_dir, progress=False)
    out = pathfinder_cnn.train_cnn(cfg, data, progress=False)
    assert [r["epoch"] for r in out["epochs"]] == [1, 2, 3, 4]
    assert [r["val_acc"] for r in out["epochs"]] == script
    assert all(math.isfinite(r["train_loss"]) for r in out["epochs"])
    assert out["best_epoch"] == 2
    assert out["best_val_acc"] == 0.9  # measured again on the restored weights
    assert out["test_acc"] == 0.9 and len(seen) == 4  # ...which are also the tested ones
    assert math.isfinite(out["test_loss"])


def test_time_budget_runs_at_least_one_epoch(data_dir):
    cfg = CNNConfig(num_train=NUM_TRAIN, num_eval=NUM_EVAL, epochs=None, max_minutes=1e-6,
                    batch_size=64, threads=1)
    data = pathfinder_cnn.load_splits(cfg, data_dir=data_dir, progress=False)
    out = pathfinder_cnn.train_cnn(cfg, data, progress=False)
    assert len(out["epochs"]) == 1 and out["stopped_by"] == "time budget"


def test_loader_subsets_match_the_standard_split_prefix(tmp_path):
    # Chunks are seeded by their index, so a split of whole chunks is a prefix of a longer one.
    small = pathfinder.PathfinderDataConfig(num_train=20, chunk_size=10)
    large = pathfinder.PathfinderDataConfig(num_train=30, chunk_size=10)
    a = pathfinder.load_pathfinder("train", small, cache_dir=tmp_path, progress=False)
    b = pathfinder.load_pathfinder("train", large, cache_dir=tmp_path, progress=False)
    assert torch.equal(a.images, b.images[:20]) and torch.equal(a.labels, b.labels[:20])


@pytest.mark.parametrize("argv", [["--epochs", "0"], ["--num-train", "0"],
                                  ["--max-minutes", "-1"]])
def test_cli_rejects_bad_settings(argv, capsys):
    with pytest.raises(SystemExit):
        pathfinder_cnn.main(argv + ["--no-progress"])
    assert "error" in capsys.readouterr().err
