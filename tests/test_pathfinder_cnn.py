"""Tests of the Pathfinder CNN sanity check (benchmarks/lra/pathfinder_cnn.py).

Everything runs on the CPU on a few hundred generated 32 px images (and a few dozen at
64 px for the resolution option); the file takes a few seconds. Too little data to learn
the task, so nothing here depends on accuracy.
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
NUM_TRAIN_64, NUM_EVAL_64 = 64, 32


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


@pytest.fixture(scope="module")
def cli_result_64(data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("out64")
    argv = ["--resolution", "64", "--num-train", str(NUM_TRAIN_64), "--num-eval",
            str(NUM_EVAL_64), "--epochs", "1", "--batch-size", "32", "--threads", "1",
            "--data-dir", str(data_dir), "--out-dir", str(out), "--no-progress"]
    assert pathfinder_cnn.main(argv) == 0
    return out, json.loads((out / "lra-pathfinder64-cnn-cpu.json").read_text())


def test_model_shapes_and_size():
    model = PathfinderCNN((16, 32, 64))
    assert model(torch.rand(3, 1, 32, 32)).shape == (3, 2)
    assert pathfinder_cnn.count_parameters(model) < 100_000  # "small": trains on 2 CPU cores


@pytest.mark.parametrize("resolution,stages", [(32, 3), (64, 4), (128, 5)])
def test_model_at_each_resolution(resolution, stages):
    model = PathfinderCNN((4, 8, 16), resolution=resolution)
    assert model.stages == pathfinder_cnn.num_stages(resolution) == stages
    assert model(torch.rand(2, 1, resolution, resolution)).shape == (2, 2)
    # One max-pool per extra stage: the last stage always sees 8x8 maps, at the last width.
    assert model.features(torch.rand(1, 1, resolution, resolution)).shape == (1, 16, 8, 8)
    assert sum(isinstance(m, torch.nn.MaxPool2d) for m in model.features) == stages - 1
    assert sum(isinstance(m, torch.nn.Conv2d) for m in model.features) == 2 * stages
    # widths keep meaning the first three stages: the 32 px model is the prefix.
    small = PathfinderCNN((4, 8, 16))
    assert [p.shape for p in model.features.parameters()][:len(list(small.features.parameters()))] \
        == [p.shape for p in small.features.parameters()]
    with pytest.raises(ValueError, match=f"expected \\(B, 1, {resolution}, {resolution}\\)"):
        model(torch.rand(2, 1, 2 * resolution, 2 * resolution))  # wrong size: a clear error


def test_receptive_field_formula():
    # conv3x3 x2 (+4), pool (+1, stride 2), conv3x3 x2 (+8), pool (+2, stride 4), ... px.
    assert [pathfinder_cnn.receptive_field(n) for n in (1, 2, 3, 4, 5)] == [5, 14, 32, 68, 140]
    for resolution in pathfinder_cnn.RESOLUTIONS:
        assert pathfinder_cnn.receptive_field(pathfinder_cnn.num_stages(resolution)) >= resolution


def _corner_gradients(features: torch.nn.Module, resolution: int) -> list[bool]:
    """Whether the 2x2 central outputs of ``features`` depend on each 2x2 corner of the input.

    Positive weights and inputs keep every ReLU open (eval-mode BN at its initial statistics
    is the identity), so a zero gradient means the pixel is outside the receptive field, not
    that a random ReLU or max-pool happened to block it.
    """
    with torch.no_grad():
        for module in features.modules():
            if isinstance(module, torch.nn.Conv2d):
                module.weight.abs_()
    x = (torch.rand(1, 1, resolution, resolution, dtype=torch.float64) + 0.1).requires_grad_()
    out = features.double().eval()(x)
    h, w = out.shape[-2] // 2, out.shape[-1] // 2
    # One output's field is >= the image but off-centre by half a pooling step (it misses a
    # 2 px strip on one side); the four central outputs together see everything.
    out[0, :, h - 1:h + 1, w - 1:w + 1].sum().backward()
    g = x.grad[0, 0].abs()
    return [bool(g[r, c].sum() > 0) for r, c in ((slice(0, 2), slice(0, 2)),
                                                  (slice(0, 2), slice(-2, None)),
                                                  (slice(-2, None), slice(0, 2)),
                                                  (slice(-2, None), slice(-2, None)))]


@pytest.mark.parametrize("resolution", [64, 128])
def test_the_extra_stages_see_the_whole_image(resolution):
    torch.manual_seed(0)
    # The last stage's central outputs reach every corner of the image...
    model = PathfinderCNN((4, 8, 8), resolution=resolution)
    assert _corner_gradients(model.features, resolution) == [True] * 4
    # ...which the three 32 px stages alone (receptive field 32 px) would not.
    assert _corner_gradients(PathfinderCNN((4, 8, 8)).features, resolution) == [False] * 4


@pytest.mark.parametrize("resolution", [16, 48, 256])
def test_bad_resolution_is_rejected(resolution, capsys):
    with pytest.raises(ValueError, match="resolution must be one of"):
        CNNConfig(resolution=resolution)
    with pytest.raises(ValueError, match="resolution must be one of"):
        PathfinderCNN(resolution=resolution)
    with pytest.raises(SystemExit):
        pathfinder_cnn.main(["--resolution", str(resolution), "--no-progress"])
    assert "invalid choice" in capsys.readouterr().err


def test_default_name_depends_on_the_resolution():
    assert pathfinder_cnn.default_name(32) == pathfinder_cnn.DEFAULT_NAME
    assert [pathfinder_cnn.default_name(r) for r in (64, 128)] == [
        "lra-pathfinder64-cnn-cpu", "lra-pathfinder128-cnn-cpu"]
    assert CNNConfig().resolution == 32  # the default run is unchanged
    assert pathfinder_cnn.build_parser().parse_args([]).name is None  # -> default_name


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
    assert result["data"]["generator_config"]["resolution"] == 32 == cfg["resolution"]
    assert result["model"]["stages"] == 3 and result["model"]["receptive_field"] == 32
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


def test_cli_at_64_px_writes_the_default_named_json(cli_result_64, data_dir):
    out, result = cli_result_64
    assert [p.name for p in out.iterdir()] == ["lra-pathfinder64-cnn-cpu.json"]
    assert result["name"] == "lra-pathfinder64-cnn-cpu"
    assert result["config"]["resolution"] == 64
    assert result["data"]["generator_config"]["resolution"] == 64
    assert len(list(data_dir.glob("pathfinder64-hard-*.pt"))) == 3  # the 64 px generator
    splits = result["data"]["splits"]
    assert {k: v["num_samples"] for k, v in splits.items()} == {
        "train": NUM_TRAIN_64, "val": NUM_EVAL_64, "test": NUM_EVAL_64}
    model = result["model"]
    assert model["stages"] == 4 and model["stage_widths"] == [16, 32, 64, 64]
    assert model["receptive_field"] == 68 and model["architecture"].startswith("4 stages")
    assert model["parameters"] == pathfinder_cnn.count_parameters(PathfinderCNN(resolution=64))
    (row,) = result["epochs"]
    assert math.isfinite(row["train_loss"]) and 0 <= result["test_acc"] <= 1


def test_load_splits_at_64_px(data_dir):
    cfg = CNNConfig(resolution=64, num_train=NUM_TRAIN_64, num_eval=NUM_EVAL_64)
    assert pathfinder_cnn.data_config(cfg).resolution == 64
    data = pathfinder_cnn.load_splits(cfg, data_dir=data_dir, progress=False)
    assert data["train"].images.shape == (NUM_TRAIN_64, 64, 64)
    assert data["val"].images.dtype == torch.uint8 and data["test"].labels.shape == (NUM_EVAL_64,)


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
