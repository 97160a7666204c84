"""CPU tests of the benchmark tooling's pure-Python parts: result merging (newest wins) and
plot data selection in benchmarks/plots.py, the E.6 table and record and the reference check
helpers in benchmarks/paper_e6.py, benchmarks/cpu_backend.py's arguments and a tiny run,
benchmarks/cold_start.py's record of the autotuner's timings, and benchmarks/targets.py's
tables and target checks."""

from __future__ import annotations

import json
import statistics

import pytest
import torch

import sparseflash
from benchmarks import cpu_backend, paper_e6, plots
from sparseflash.reference import dense_attention


def _row(method="sparseflash", pattern="dense", N=1024, mode="fwd", tflops=100.0, **kw):
    row = dict(method=method, pattern=pattern, density=1.0 if pattern == "dense" else 0.1,
               N=N, B=1, H=4, D=64, dtype="bfloat16", mode=mode, ms=1.0, tflops=tflops,
               peak_mb=10.0)
    row.update(kw)
    return row


def _write(tmp_path, name, records):
    path = tmp_path / name
    path.write_text(json.dumps(records))
    return path


# ----------------------------------------------------------------------------- newest wins
def test_newest_record_wins_by_position_within_and_across_files(tmp_path):
    a = _write(tmp_path, "a.json", [dict(gpu="G", rows=[_row(tflops=1.0), _row(N=2048)]),
                                    dict(gpu="G", rows=[_row(tflops=2.0)])])
    b = _write(tmp_path, "b.json", [dict(gpu="G", rows=[_row(tflops=3.0, mode="fwd+bwd")])])
    rows = plots.newest_rows(plots.load_records([a, b]))
    by = {(r["N"], r["mode"]): r["tflops"] for r in rows}
    assert by == {(1024, "fwd"): 2.0, (2048, "fwd"): 100.0, (1024, "fwd+bwd"): 3.0}
    assert all(r["gpu"] == "G" for r in rows)  # inherited from the record


def test_newest_record_wins_by_date_when_every_record_has_one(tmp_path):
    path = _write(tmp_path, "r.json", [
        dict(gpu="G", date="2026-11-21T10:00:00+0000", rows=[_row(tflops=5.0)]),
        dict(gpu="G", date="2026-11-20T10:00:00+0000", rows=[_row(tflops=4.0)])])
    (row,) = plots.newest_rows(plots.load_records([path]))
    assert row["tflops"] == 5.0  # written first, but dated later


def test_rows_on_different_gpus_are_different_measurements(tmp_path):
    path = _write(tmp_path, "r.json", [dict(gpu="A", rows=[_row(tflops=1.0)]),
                                       dict(gpu="B", rows=[_row(tflops=2.0)])])
    rows = plots.newest_rows(plots.load_records([path]))
    assert sorted((r["gpu"], r["tflops"]) for r in rows) == [("A", 1.0), ("B", 2.0)]


def test_graph_timed_rows_neither_replace_nor_join_event_timed_ones(tmp_path):
    """A newer --timer cudagraph record keeps its own rows (the timer is part of the
    measurement's key), and each timer's rows go to figures of their own."""
    path = _write(tmp_path, "r.json", [dict(gpu="G", rows=[_row(tflops=1.0)]),
                                       dict(gpu="G", rows=[_row(tflops=9.0, timer="cudagraph")])])
    rows = plots.newest_rows(plots.load_records([path]))
    assert sorted(r["tflops"] for r in rows) == [1.0, 9.0]
    by_timer = plots.rows_by_timer(rows)
    assert {timer: [r["tflops"] for r in timed] for timer, timed in by_timer.items()} == {
        "events": [1.0], "cudagraph": [9.0]}


def test_e6_key_lets_a_newer_failure_replace_every_mode_of_an_older_success():
    old = dict(gpu="G", _position=(0, 0), rows=[
        _row(method="flex", mode=m, status="ok") for m in ("fwd", "bwd", "fwd+bwd")])
    new = dict(gpu="G", _position=(0, 1), rows=[
        _row(method="flex", mode=None, status="oom", tflops=None)])
    rows = plots.newest_rows([old, new], key=paper_e6.E6_GROUP_KEY)
    assert [r["status"] for r in rows] == ["oom"]


def test_newest_rows_counts_rows_without_a_timer_as_timed_by_events():
    """Rows from before ``--timer`` (no ``timer`` field) are the same measurement as a newer
    events row of the same point, which replaces them; a CUDA-graph row is another."""
    old = dict(gpu="G", date="2026-01-01T00:00:00", rows=[_row(tflops=1.0)])
    new = dict(gpu="G", date="2026-02-01T00:00:00", rows=[_row(tflops=2.0, timer="events"),
                                                          _row(tflops=3.0, timer="cudagraph")])
    rows = plots.newest_rows([old, new])
    assert sorted((r["timer"], r["tflops"]) for r in rows) == [("cudagraph", 3.0),
                                                                ("events", 2.0)]


def test_load_records_rejects_what_is_not_a_results_file(tmp_path):
    bad = _write(tmp_path, "bad.json", {"method": "x"})
    with pytest.raises(ValueError, match="list of run records"):
        plots.load_records([bad])
    with pytest.raises(FileNotFoundError):
        plots.load_records([tmp_path / "missing.json"])


# ----------------------------------------------------------------------------- plot data
def test_host_bound_rows_are_short_calls_the_kernels_do_not_fill():
    """The rule behind the tables' stars and the plots' hollow markers: a full call under
    1.25 ms whose wall time is over 1.1x its kernels' summed time."""
    assert plots.host_bound(_row(ms=0.5, kernel_ms=0.4))
    assert not plots.host_bound(_row(ms=0.5, kernel_ms=0.46))   # within 1.1x
    assert plots.host_bound(_row(ms=1.2, kernel_ms=0.94))       # still short
    assert not plots.host_bound(_row(ms=3.4, kernel_ms=3.05))   # a long call
    assert not plots.host_bound(_row(ms=0.5))                   # no kernel time recorded
    assert not plots.host_bound(_row(ms=None, kernel_ms=0.1, status="oom"))
    rows = [_row(pattern="local(3)", N=16384, ms=0.8, kernel_ms=0.6),
            _row(pattern="local(3)", N=4096, ms=0.3, kernel_ms=0.29),
            _row(method="flex", pattern="local(3)", N=16384, ms=0.8)]
    assert plots.host_bound_points(rows) == {("local(3)", 64, "fwd", "bfloat16",
                                              "sparseflash", 16384)}


def test_series_vs_n_groups_by_panel_sorts_by_n_and_skips_failures():
    rows = [_row(N=4096, tflops=3.0), _row(N=1024, tflops=1.0), _row(N=2048, tflops=2.0),
            _row(method="flex", N=1024, tflops=0.5),
            _row(method="flex", N=2048, tflops=None, status="oom"),
            _row(pattern="local(1)", N=1024, tflops=7.0)]
    panels = plots.series_vs_n(rows, "tflops")
    assert set(panels) == {("dense", 64, "fwd", "bfloat16"), ("local(1)", 64, "fwd", "bfloat16")}
    dense = panels[("dense", 64, "fwd", "bfloat16")]
    assert dense["sparseflash"] == [(1024, 1.0), (2048, 2.0), (4096, 3.0)]
    assert dense["flex"] == [(1024, 0.5)]


def test_speed_vs_n_draws_the_patterns_measured_at_several_n():
    swept = [_row(N=1024, tflops=1.0), _row(N=4096, tflops=3.0),
             _row(pattern="local(3)", D=128, N=4096, tflops=2.0),
             _row(pattern="local(3)", D=64, N=1024, tflops=2.0)]
    single = [_row(pattern="chunk(8)", N=4096, tflops=2.0)]
    # Swept across panels (two head dims) counts; a single-N pattern beside them is left out.
    assert plots.swept_patterns(plots.series_vs_n(swept + single, "tflops")) == {
        "dense", "local(3)"}
    # Where nothing was swept, every pattern is drawn.
    assert plots.swept_patterns(plots.series_vs_n(single + [_row(N=4096, tflops=1.0)],
                                                  "tflops")) == {"dense", "chunk(8)"}


def test_series_vs_density_takes_the_n_with_dense_and_most_patterns():
    rows = [_row(N=1024, tflops=50.0), _row(N=4096, tflops=300.0),
            # A larger N without a dense row (the 1M-token runs) is not the panel's N.
            _row(pattern="local(3)", density=0.001, N=2**20, tflops=100.0),
            _row(pattern="butterfly", density=0.002, N=2**20, tflops=100.0),
            # Nor is a larger N with fewer patterns.
            _row(N=8192, tflops=310.0),
            _row(pattern="local(3)", density=0.05, N=4096, tflops=120.0),
            _row(pattern="local(3)", density=0.05, N=1024, tflops=10.0),
            _row(method="flex", pattern="local(3)", density=0.05, N=4096, tflops=130.0),
            _row(method="sdpa-cudnn", N=4096, tflops=450.0)]  # dense only: not drawn
    (panel,) = plots.series_vs_density(rows).values()
    assert panel["N"] == 4096
    assert panel["dense"] == 300.0
    assert panel["series"]["sparseflash"] == [(0.05, 120.0, "local(3)"), (1.0, 300.0, "dense")]
    assert panel["series"]["flex"] == [(0.05, 130.0, "local(3)")]
    assert "sdpa-cudnn" not in panel["series"]


def test_plots_main_draws_a_single_n_file(tmp_path):
    pytest.importorskip("matplotlib")
    path = _write(tmp_path, "G-attention.json", [dict(gpu="Fake GPU", rows=[
        _row(), _row(method="flex", tflops=80.0), _row(mode="fwd+bwd", tflops=90.0),
        _row(pattern="local(3)", density=0.05, tflops=60.0),
        # set by the host: drawn hollow in both speed figures
        _row(pattern="local(1)", density=0.02, tflops=20.0, ms=0.5, kernel_ms=0.3)])])
    written = plots.main([str(path), "--out-dir", str(tmp_path / "out")])
    names = sorted(p.name for p in written)
    assert names == ["Fake-GPU-memory-vs-n.png", "Fake-GPU-speed-vs-density.png",
                     "Fake-GPU-speed-vs-n.png"]
    assert all(p.stat().st_size > 10_000 for p in written)


def test_plots_main_draws_each_timer_apart(tmp_path):
    """Rows timed by events and rows replayed from CUDA graphs make two sets of figures,
    the second named and titled for its timer."""
    pytest.importorskip("matplotlib")
    path = _write(tmp_path, "G-attention.json", [dict(gpu="Fake GPU", rows=[
        _row(), _row(N=2048), _row(tflops=150.0, timer="cudagraph"),
        _row(N=2048, tflops=160.0, timer="cudagraph")])])
    written = plots.main([str(path), "--out-dir", str(tmp_path / "out")])
    assert sorted(p.name for p in written) == sorted(
        f"Fake-GPU{tag}-{name}.png" for tag in ("", "-cudagraph")
        for name in ("memory-vs-n", "speed-vs-density", "speed-vs-n"))
    by_timer = plots.rows_by_timer(plots.newest_rows(plots.load_records([path])))
    assert plots._gpu_label(by_timer["events"]) == "Fake GPU"
    assert plots._gpu_label(by_timer["cudagraph"]) == "Fake GPU, replayed from CUDA graphs"


def test_plots_main_says_when_there_is_nothing_to_plot(tmp_path):
    path = _write(tmp_path, "empty.json", [dict(gpu="G", rows=[])])
    with pytest.raises(SystemExit, match="nothing to plot"):
        plots.main([str(path), "--out-dir", str(tmp_path / "out")])


def test_plots_paper_mode_draws_fake_e6_rows(tmp_path):
    pytest.importorskip("matplotlib")
    rows = [_row(N=n, mode=m, ms=0.1 * n / 128, peak_total_mb=float(n), status="ok",
                 dtype="float16") for n in (128, 1024) for m in paper_e6.MODES]
    path = _write(tmp_path, "G-paper-e6.json", [dict(gpu="Fake GPU", rows=rows)])
    (png,) = plots.main([str(path), "--paper", "--out-dir", str(tmp_path / "out")])
    assert png.name == "Fake-GPU-paper-e6.png" and png.stat().st_size > 10_000


# ----------------------------------------------------------------------------- E.6 table
def _e6_rows():
    rows = []
    for n in (128, 65536):
        for mode in paper_e6.MODES:
            rows.append(_row(method="sparseflash", N=n, mode=mode, ms=n / 1000 + len(mode),
                             dtype="float16", B=16, H=8, status="ok", peak_total_mb=n / 10,
                             masked=True, dropout_p=0.1, gpu="Fake GPU"))
        rows.append(_row(method="sdpa-flash", N=n, mode="fwd", ms=1.5, dtype="float16",
                         status="ok", peak_total_mb=7.0, masked=False, dropout_p=0.1))
    rows.append(_row(method="sdpa-math", N=65536, mode=None, status="oom",
                     error="OutOfMemoryError: CUDA out of memory", dtype="float16"))
    return rows


def test_paper_figures_are_complete_and_where_expected():
    for section, table in paper_e6.PAPER_A100.items():
        for name, values in table.items():
            assert len(values) == len(paper_e6.PAPER_SEQ_LENS), (section, name)
    assert paper_e6.paper_value("fwd", "FlashAttention", 65536) == 2682.35
    assert paper_e6.paper_value("fwd+bwd", "Block-Sparse FlashAttention", 128) == 0.44
    assert paper_e6.paper_value("bwd", "PyTorch Attention", 8192) is None  # '-' in the paper
    assert paper_e6.paper_value("fwd", "FlashAttention", 100) is None


def test_e6_table_has_our_rows_the_paper_rows_and_marks_failures():
    text = paper_e6.table(_e6_rows())
    lines = text.splitlines()
    assert "| method | 128 | 65536 |" in lines
    fwd = lines.index("**fwd time (ms)**")
    bwd = lines.index("**bwd time (ms)**")
    section = lines[fwd:bwd]
    assert "| sparseflash | 3.13 | 68.54 |" in section
    assert "| sdpa-flash (no mask) | 1.50 | 1.50 |" in section
    assert "| sdpa-math |  | OOM |" in section
    assert "| *paper, A100: FlashAttention* | 0.04 | 2682.35 |" in section
    assert "| *paper, A100: PyTorch Attention* | 0.36 | - |" in section
    mem = lines[lines.index("**memory, one fwd+bwd (MiB; ours incl. inputs)**"):]
    assert "| sparseflash | 13 | 6554 |" in mem
    assert "| *paper, A100: Block-Sparse FlashAttention* | 22 | 13384 |" in mem
    assert "* sdpa-math: oom: OutOfMemoryError: CUDA out of memory" in lines
    assert "arXiv:2205.14135" in text


def test_e6_table_without_paper_rows():
    text = paper_e6.table(_e6_rows(), modes=("fwd",), memory=False, paper=False)
    assert "paper, A100" not in text and "**bwd time (ms)**" not in text


def test_e6_record_keeps_rows_setup_and_citation():
    rows = _e6_rows()
    record = paper_e6.make_record(rows, ["--seq-lens", "128", "--methods", "sparseflash"],
                                  gpu="Fake GPU", versions=dict(torch="x"), setup=dict(B=16),
                                  seconds=1.23)
    assert record["command"] == ("python -m benchmarks.paper_e6 --seq-lens 128 --methods "
                                 "sparseflash")
    assert record["rows"] is rows and record["setup"] == dict(B=16)
    assert record["gpu"] == "Fake GPU" and record["torch"] == "x" and record["seconds"] == 1.2
    assert "Appendix E.6" in record["paper"]["citation"]
    assert plots._date(record) is not None  # the date parses, so newest-wins can use it


def test_e6_table_from_files_merges_newest(tmp_path, capsys):
    old = [dict(r, ms=99.0) for r in _e6_rows()]
    path = _write(tmp_path, "G-paper-e6.json", [dict(gpu="Fake GPU", rows=old),
                                                dict(gpu="Fake GPU", rows=_e6_rows())])
    paper_e6.main(["--table-from", str(path)])
    out = capsys.readouterr().out
    assert "| sparseflash | 3.13 | 68.54 |" in out and "99.00" not in out


def test_e6_exits_with_a_clear_message_without_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit, match="needs a CUDA GPU"):
        paper_e6.main(["--seq-lens", "128"])


# ----------------------------------------------------------------------------- E.6 helpers
def test_padding_lengths_follow_the_paper():
    lengths = paper_e6.padding_lengths(1000, 256, 20, torch.Generator().manual_seed(0))
    assert int(lengths.min()) >= 236 and int(lengths.max()) <= 256
    assert len(set(lengths.tolist())) > 15  # spread over the range, not one value
    mask = paper_e6.key_padding_mask(torch.tensor([3, 5]), 5)
    assert mask.tolist() == [[False, False, False, True, True], [False] * 5]


def test_token_mask_rows_matches_the_layouts_dense_mask():
    # Every block code: full, bounds (ragged last block), causal and anti-causal diagonals.
    layout = sparseflash.compile_layout(
        "per_head(local(1) & causal, (local(1) - causal) | global(1))", 200, block=32,
        num_heads=2)
    assert set(layout.block_codes().unique().tolist()) == {-1, 0, 1, 2, 3}
    rows = [0, 5, 31, 32, 100, 170, 199]
    assert torch.equal(paper_e6.token_mask_rows(layout, rows), layout.to_dense()[:, rows])


@pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile")
@pytest.mark.parametrize("name", ["sparseflash", "sparseflash-butterfly", "sdpa-math", "flex",
                                  "flex-butterfly"])
def test_methods_pass_the_reference_check_on_cpu(name):
    method = paper_e6.METHODS[name]
    B, H, N, D = 2, 2, 96, 16
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(B, H, N, D, generator=g) for _ in range(3))
    layout = sparseflash.compile_layout("butterfly" if method.sparse else "dense", N, block=16,
                                        num_heads=H)
    lengths = paper_e6.padding_lengths(B, N, 20, torch.Generator().manual_seed(1))
    padding = paper_e6.key_padding_mask(lengths, N)
    rows = paper_e6.check_rows(N, count=8)
    assert rows == list(range(8)) + list(range(88, 96))
    ref = paper_e6.reference_rows(q, k, v, layout, padding, rows)
    # The reference itself against a full dense run.
    full, _ = dense_attention(q, k, v, layout.to_dense(), key_padding_mask=padding)
    torch.testing.assert_close(ref, full[:, :, rows])
    out = paper_e6.build(method, q, k, v, layout, lengths, 0.0)()
    torch.testing.assert_close(out[:, :, rows], ref, atol=2e-5, rtol=1e-4)
    if method.sparse:  # the check would catch a method that ignored the layout
        dense_out = paper_e6.build(paper_e6.METHODS["sparseflash"], q, k, v,
                                   sparseflash.compile_layout("dense", N, block=16), lengths,
                                   0.0)()
        assert (dense_out[:, :, rows] - ref).abs().max() > 1e-2


def test_sdpa_flash_is_built_without_the_mask():
    method = paper_e6.METHODS["sdpa-flash"]
    assert not method.takes_mask and method.takes_dropout
    assert not paper_e6.METHODS["flex"].takes_dropout
    assert paper_e6._method_label("sdpa-flash") == "sdpa-flash (no mask)"
    assert paper_e6._method_label("flex") == "flex (no dropout)"


# ----------------------------------------------------------------------------- cpu_backend
def test_cpu_backend_defaults_and_argument_errors():
    args = cpu_backend.parse_args([])
    assert (args.batch, args.heads, args.seq_len, args.head_dim) == (8, 4, 4096, 64)
    assert args.pattern == "local(2) | global(1)" and args.dtype == "float32"
    assert args.isolate and args.save and args.threads is None
    args = cpu_backend.parse_args(["-N", "256", "--threads", "1", "--repeats", "5",
                                   "--no-isolate", "--reference", "never"])
    assert (args.seq_len, args.threads, args.repeats, args.isolate, args.reference) == \
        (256, 1, 5, False, "never")
    for bad in (["--repeats", "0"], ["--threads", "0"], ["-N", "-1"], ["--warmup", "-1"]):
        with pytest.raises(SystemExit):
            cpu_backend.parse_args(bad)


def test_cpu_backend_tiny_run_writes_a_record(tmp_path):
    out = tmp_path / "cpu.json"
    argv = ["-B", "1", "-H", "2", "-N", "256", "-D", "16", "--repeats", "2", "--warmup", "1",
            "--threads", "1", "--no-isolate", "--reference", "always", "--out", str(out)]
    record = cpu_backend.main(argv)
    (saved,) = json.loads(out.read_text())
    assert saved["rows"] == json.loads(json.dumps(record["rows"]))
    assert saved["command"].endswith("--reference always --out " + str(out))
    sf, ref = saved["rows"]
    assert (sf["method"], ref["method"]) == ("sparseflash", "reference")
    for row in (sf, ref):
        assert row["threads"] == 1 and len(row["fwd+bwd_runs_s"]) == 2
        assert 0 < row["fwd_s"] and 0 < row["fwd+bwd_s"] and row["peak_rss_mb"] > 0
    # 256 tokens in 128-blocks: local(2) | global(1) covers both blocks.
    assert sf["density"] == 1.0
    assert saved["cpu"] and saved["torch"] == torch.__version__
    cpu_backend.main(argv)  # appends
    assert len(json.loads(out.read_text())) == 2


def test_cpu_backend_skips_a_reference_that_would_not_fit(tmp_path, monkeypatch):
    monkeypatch.setattr(cpu_backend, "available_memory_mb", lambda: 0.01)  # MiB
    args = cpu_backend.parse_args(["-B", "1", "-H", "1", "-N", "128", "-D", "16",
                                   "--repeats", "1", "--warmup", "0", "--no-isolate",
                                   "--no-save"])
    args.argv = []
    record = cpu_backend.run(args)
    ref = record["rows"][1]
    assert ref["method"] == "reference" and "exceeds 80%" in ref["skipped"]
    assert "skipped" in cpu_backend.format_record(record)


def _tiny_e6_problem(pattern="dense"):
    B, H, N, D = 2, 2, 64, 16
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(B, H, N, D, generator=g) for _ in range(3))
    layout = sparseflash.compile_layout(pattern, N, block=16, num_heads=H)
    lengths = paper_e6.padding_lengths(B, N, 20, torch.Generator().manual_seed(1))
    base = dict(method="sparseflash", pattern=pattern, density=layout.density, N=N, B=B, H=H,
                D=D, dtype="float32", gpu="cpu", masked=True, max_pad=20, dropout_p=0.1)
    return q, k, v, layout, lengths, paper_e6.key_padding_mask(lengths, N), base


def test_run_method_checks_then_times_each_mode_and_records_a_failing_mode(monkeypatch):
    import benchmarks.attention as attention
    timed = []

    def fake_time(fn, mode, inputs):  # stands in for do_bench, which needs CUDA
        if mode == "bwd":
            raise RuntimeError("CUDA out of memory. Tried to allocate 8.00 GiB")
        out = fn()
        timed.append((mode, out.shape))
        return 2.0, 1.5

    monkeypatch.setattr(attention, "_time", fake_time)
    monkeypatch.setattr(paper_e6, "measure_memory", lambda fn, inputs: (1.0, 3.0))
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    q, k, v, layout, lengths, padding, base = _tiny_e6_problem()
    args = paper_e6.parse_args(["--modes", "fwd", "bwd", "fwd+bwd"])
    rows = paper_e6._run_method(paper_e6.METHODS["sparseflash"], base, q, k, v, layout,
                                lengths, padding, paper_e6.check_rows(64, 8), {}, args, 1e-4)
    assert [(r["mode"], r["status"]) for r in rows] == [("fwd", "ok"), ("bwd", "oom"),
                                                        ("fwd+bwd", "ok")]
    assert [m for m, _ in timed] == ["fwd", "fwd+bwd"]
    assert rows[0]["ms"] == 2.0 and rows[0]["peak_total_mb"] == 3.0 and rows[0]["max_err"] < 1e-4
    assert rows[0]["kernel_ms"] == 1.5
    assert "out of memory" in rows[1]["error"]
    text = paper_e6.table(rows, paper=False)
    assert "| sparseflash | 2.00 |" in text and "| sparseflash | OOM |" in text


def test_e6_table_header_says_which_dropout_ran():
    """The header names the dropout of the methods that take it: 0.0 for a run without
    dropout (it said "not recorded"), and Flex's rows (never dropout) do not count."""
    base = _tiny_e6_problem()[-1]
    for p in (0.0, 0.1):
        rows = [dict(base, mode="fwd", status="ok", ms=1.0, peak_total_mb=1.0, dropout_p=p),
                dict(base, method="flex", mode="fwd", status="ok", ms=2.0, peak_total_mb=1.0,
                     dropout_p=0.0)]
        assert f"dropout {p}, key padding" in paper_e6.table(rows, paper=False).splitlines()[0]


def test_e6_table_shows_the_paper_rows_only_at_the_papers_shape():
    """The paper measured B=16, H=8, D=64: its A100 rows sit under a table of that shape
    and not under one at another head dim."""
    base = _tiny_e6_problem()[-1]
    row = dict(base, B=16, H=8, D=64, N=1024, mode="fwd", status="ok", ms=1.0,
               peak_total_mb=1.0)
    assert "*paper, A100" in paper_e6.table([row])
    assert "*paper, A100" not in paper_e6.table([dict(row, D=128)])


def test_run_method_records_a_method_that_fails_the_check(monkeypatch):
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    q, k, v, layout, lengths, padding, base = _tiny_e6_problem()
    idx = paper_e6.check_rows(64, 8)
    wrong = {(False, True): torch.zeros(2, 2, len(idx), 16)}  # a reference it cannot match
    args = paper_e6.parse_args([])
    (row,) = paper_e6._run_method(paper_e6.METHODS["sparseflash"], base, q, k, v, layout,
                                  lengths, padding, idx, wrong, args, 1e-4)
    assert row["mode"] is None and row["status"] == "error"
    assert "against the reference exceeds" in row["error"]


def test_sampled_rows_reference_matches_the_full_one():
    """benchmarks.attention checks long sequences on five sampled block rows of the torch
    backend: those rows equal the full masked reference, and the others stay untouched."""
    from benchmarks.attention import _check, _reference
    from sparseflash.reference import block_forward

    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 16 * 32, 16, generator=gen) for _ in range(3))
    layout = sparseflash.compile_layout("local(1) | global(1)", 16 * 32, block=32)
    mask = layout.to_dense()
    full = dense_attention(q.double(), k.double(), v.double(), mask)[0]
    rows = [0, 7, 15]
    out, lse = block_forward(q, k, v, layout, 16 ** -0.5, rows=rows)
    for r in range(16):
        tokens = slice(r * 32, (r + 1) * 32)
        if r in rows:
            torch.testing.assert_close(out[:, :, tokens].double(), full[:, :, tokens],
                                       atol=1e-5, rtol=1e-5)
        else:
            assert (out[:, :, tokens] == 0).all() and (lse[:, :, tokens] == float("-inf")).all()
    # The benchmark's own sampled check passes on the truth and fails on a wrong output.
    tokens = torch.cat([torch.arange(r * 32, (r + 1) * 32) for r in (0, 1, 8, 14, 15)])
    sampled = (block_forward(q, k, v, layout, 16 ** -0.5, rows=[0, 1, 8, 14, 15])[0], tokens)
    assert _check(full.float(), sampled, "truth", 1e-4) < 1e-4
    with pytest.raises(RuntimeError):
        _check(torch.zeros_like(full), sampled, "zeros", 1e-4)
    assert _reference(q, k, v, layout)[1] is None  # short: the full reference


def test_density_label_shows_the_range_over_n():
    assert plots._density_label(None) == ""
    assert plots._density_label([0.054, 0.054]) == " (5.4%)"
    assert plots._density_label([0.001, 0.688, 0.054]) == " (0.1%-68.8%)"


def test_cold_start_exits_with_a_clear_message_without_cuda(monkeypatch):
    from benchmarks import cold_start
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit, match="CUDA GPU"):
        cold_start.main(["--head-dims", "64"])


def test_cold_start_tuning_record_lists_every_candidate_and_the_pick(monkeypatch):
    """What the autotuner measured per key (Kernel.timings), the pick, and keys that
    reused another key's pick (no timings of their own)."""
    import triton

    from benchmarks import cold_start
    from sparseflash.kernels import launch

    class Tuned:
        def __init__(self, picked, timings):
            self.picked, self.timings = picked, timings
    wide = triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8, num_stages=3)
    narrow = triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4, num_stages=2)
    monkeypatch.setattr(launch, "_forward", Tuned(
        {("k1",): wide, ("k2",): narrow},
        {("k1",): {wide: [1.0, 0.9, 1.1], narrow: [1.2, 1.1, 1.3]}, ("k2",): {}}))
    monkeypatch.setattr(launch, "_dq", Tuned({}, {}))
    monkeypatch.setattr(launch, "_dkdv", Tuned({}, {}))
    rows = cold_start._tuning_record()
    assert [(r["kernel"], r["picked"]) for r in rows] == [
        ("forward", "128x64/w8/s3"), ("forward", "64x64/w4/s2")]
    assert rows[0]["candidates"] == [dict(config="128x64/w8/s3", ms=1.0),
                                     dict(config="64x64/w4/s2", ms=1.2)]
    assert rows[1]["candidates"] == []


@pytest.mark.parametrize("timer, used", [("events", "do_bench"),
                                         ("cudagraph", "do_bench_cudagraph")])
def test_attention_timer_picks_the_bench_function(monkeypatch, timer, used):
    """benchmarks.attention --timer: CUDA events around calls (do_bench) or calls replayed
    from a CUDA graph (do_bench_cudagraph), the step being the same fwd+bwd."""
    import benchmarks.attention as attention
    from triton import testing

    calls = []

    def stand_in(name):
        def bench(step, **kwargs):
            calls.append(name)
            step()  # the timed step runs the forward and its backward
            return 1.25
        return bench

    for name in ("do_bench", "do_bench_cudagraph"):
        monkeypatch.setattr(testing, name, stand_in(name))
    monkeypatch.setattr(attention, "_kernel_ms", lambda step: 0.5)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    q = torch.randn(1, 1, 4, 16, requires_grad=True)
    assert attention._time(lambda: q * 2, "fwd+bwd", (q,), timer) == (1.25, 0.5)
    assert calls == [used]


def test_a_method_that_fails_is_kept_on_record(capsys):
    """A peer that cannot run (Flex out of memory at 64K on an H100) leaves a failure in
    the record, its error's first line, and says so on stderr."""
    from benchmarks.attention import _failure
    exc = RuntimeError("CUDA out of memory. Tried to allocate 32.00 GiB.\nmore detail")
    failure = _failure("flex", "dense", 65536, 64, "bfloat16", None, exc, "the checked call")
    assert failure == dict(method="flex", pattern="dense", N=65536, D=64, dtype="bfloat16",
                           mode=None, stage="the checked call",
                           error="RuntimeError: CUDA out of memory. Tried to allocate 32.00 GiB.")
    err = capsys.readouterr().err
    assert "flex on 'dense' N=65536 D=64: the checked call failed: RuntimeError" in err
    # An exception with no message (a bare assert) is recorded too, not an IndexError.
    assert _failure("flex", "dense", 1024, 64, "bfloat16", "fwd", AssertionError(),
                    "timing")["error"] == "AssertionError: "


# ----------------------------------------------------------------------------- Flex's mask
@pytest.mark.parametrize("pattern,N,Nk,H,block", [
    ("causal", 300, 300, 2, 64),
    ("per_head(local(1), butterfly)", 513, 513, 2, 32),
    ("bigbird & causal", 200, 200, 4, 32),
    ("strided(4) | local(1)", 130, 300, 1, 32),
])
def test_flex_mask_mod_is_the_layouts_token_mask(pattern, N, Nk, H, block):
    """FlexAttention gets the layout's token mask exactly, tails and per-head layouts too."""
    from torch.nn.attention.flex_attention import create_mask
    from benchmarks.peers import layout_mask_mod
    layout = sparseflash.compile_layout(pattern, N, kv_seq_len=Nk, block=block, num_heads=H)
    heads = layout.num_heads if layout.num_heads > 1 else None
    mask = create_mask(layout_mask_mod(layout, layout.device), None, heads, N, Nk, "cpu")
    dense = layout.to_dense()
    assert torch.equal(mask[0].expand_as(dense), dense)


@pytest.mark.parametrize("pattern,N,H,block", [
    ("causal", 256, 1, 64),
    ("per_head(local(1), butterfly)", 512, 2, 32),
    ("local(1) | global(1) | random(2)", 384, 1, 32),
])
def test_flex_block_mask_has_the_layouts_full_and_partial_blocks(pattern, N, H, block):
    """Where N is a multiple of the block, Flex's block mask keeps the layout's blocks, its
    full blocks as full and its partial ones as partial: the same blocks skipped and
    the same masked, so the benchmark compares like with like. (In a query tail Flex
    counts every block partial, where the kernels test the rows' bounds.)"""
    from benchmarks.peers import flex_block_mask
    layout = sparseflash.compile_layout(pattern, N, block=block, num_heads=H)
    block_mask = flex_block_mask(layout)
    codes = layout.block_codes()
    partial = ((codes >= 0) & (codes != 3)).sum(-1)
    full = (codes == 3).sum(-1)
    assert torch.equal(block_mask.kv_num_blocks[0].expand_as(partial), partial)
    assert torch.equal(block_mask.full_kv_num_blocks[0].expand_as(full), full)


def test_flex_block_mask_built_compiled_equals_the_eager_one():
    """On CUDA the benchmark builds Flex's block mask compiled (eager needs N^2 memory);
    compiled on the CPU here, it equals the eager one block for block."""
    from benchmarks.peers import flex_block_mask
    layout = sparseflash.compile_layout("per_head(causal, butterfly)", 1024, block=128,
                                        num_heads=2)
    compiled, eager = flex_block_mask(layout, compiled=True), flex_block_mask(layout)
    names = ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices")
    for name in names:
        assert torch.equal(getattr(compiled, name), getattr(eager, name)), name
    assert eager.full_kv_num_blocks.sum() > 0 and eager.kv_num_blocks.sum() > 0


# ----------------------------------------------------------------------------- targets
def _target_rows(d=64, timer="cudagraph"):
    """sparseflash, Flex and cuDNN on dense and one 10% pattern, fwd and fwd+bwd."""
    rows = []
    for mode, scale in (("fwd", 1.0), ("fwd+bwd", 0.9)):
        for method, pattern, tflops, ms in (
                ("sparseflash", "dense", 400, 4.0), ("flex", "dense", 200, 8.0),
                ("sdpa-cudnn", "dense", 420, 3.8),
                ("sparseflash", "local(3)", 340, 0.5), ("flex", "local(3)", 200, 0.9)):
            wall = ms * (1 + (mode != "fwd"))
            rows.append(_row(method=method, pattern=pattern, D=d, mode=mode, timer=timer,
                             tflops=tflops * scale, ms=wall,
                             kernel_ms=0.4 if (pattern, mode) == ("local(3)", "fwd") else wall))
    return rows


def test_targets_table_gives_shares_ratios_and_stars_host_bound_rows():
    from benchmarks import targets
    table = targets.Table(_target_rows())
    assert table.patterns == ["dense", "local(3)"]
    assert table.share("local(3)", 64, "fwd") == pytest.approx(0.85)
    assert table.ratio("local(3)", 64, "fwd") == pytest.approx(1.7)
    # local(3) fwd: 0.5 ms of wall against 0.4 of kernels, a short call set by the host;
    # its fwd+bwd's wall time is its kernels', as dense's is.
    assert table.host_bound("local(3)", 64, "fwd")
    assert not table.host_bound("local(3)", 64, "fwd+bwd")
    assert not table.host_bound("dense", 64, "fwd")
    text = targets.readme_table(table)
    assert "| `dense` (100.0%) | 400 (2.00x) | 360 (2.00x) |" in text
    assert "| `local(3)` (10.0%) | 340* (85%, 1.70x) | 306 (85%, 1.70x) |" in text


def test_targets_peer_table_puts_flex_and_cudnn_beside_each_row():
    """The README's first table: sparseflash, Flex and their ratio in each mode, cuDNN's
    figures where it ran, the host-set figure and its ratio starred."""
    from benchmarks import targets
    text = targets.peer_table(targets.Table(_target_rows()))
    assert text.splitlines()[0] == ("| pattern (density) | D | fwd: sparseflash | Flex | ratio "
                                    "| fwd+bwd: sparseflash | Flex | ratio "
                                    "| cuDNN fwd / fwd+bwd |")
    assert "| `dense` (100.0%) | 64 | 400 | 200 | 2.00x | 360 | 180 | 2.00x | 420 / 378 |" in text
    assert "| `local(3)` (10.0%) | 64 | 340* | 200 | 1.70x* | 306 | 180 | 1.70x |  |" in text


def test_targets_misses_name_each_row_under_its_target():
    from benchmarks import targets
    assert (targets.flex_target("dense", 64), targets.flex_target("dense", 128),
            targets.flex_target(targets.RANDOM_GLOBAL, 64)) == (1.8, 1.4, 2.0)
    missed = targets.misses(targets.Table(_target_rows(d=64)))
    # D=64: dense at 400/420 of cuDNN (under 100%), local(3) at 85% of dense, ratios
    # 2.0x (met) and 1.7x (under 1.8x).
    assert [m[:3] for m in missed["dense against cuDNN"]] == [("dense", 64, "fwd"),
                                                             ("dense", 64, "fwd+bwd")]
    assert {m[0] for m in missed["sparse efficiency"]} == {"local(3)"}
    assert {(m[0], m[2]) for m in missed["ratio to Flex"]} == {("local(3)", "fwd"),
                                                               ("local(3)", "fwd+bwd")}
    # D=128 asks 85% of cuDNN and 1.4x Flex: only the sparse efficiency is missed.
    missed = targets.misses(targets.Table(_target_rows(d=128)))
    assert not missed["dense against cuDNN"] and not missed["ratio to Flex"]
    assert len(missed["sparse efficiency"]) == 2


def test_targets_without_a_peer_are_not_called_met(tmp_path, capsys):
    """Rows whose peer did not run (Flex out of memory at 64K on an H100, session 58) are
    neither missed nor met: with no Flex row at all the target reads "not checked", and
    with some missing the met line counts the rows it could not compare."""
    from benchmarks import targets
    no_flex = [r for r in _target_rows() if r["method"] != "flex"]
    assert targets.coverage(targets.Table(no_flex))["ratio to Flex"] == (0, 4)
    some_flex = [r for r in _target_rows(d=128)
                 if (r["method"], r["pattern"]) != ("flex", "local(3)")]
    assert targets.coverage(targets.Table(some_flex))["ratio to Flex"] == (2, 4)
    sparse_only = [r for r in _target_rows() if r["pattern"] != "dense"]
    path = _write(tmp_path, "r.json", [dict(gpu="G", note="a", rows=no_flex),
                                       dict(gpu="H", note="b", rows=some_flex),
                                       dict(gpu="K", note="c", rows=sparse_only)])
    targets.main([str(path), "--note", "a", "--note", "b", "--note", "c"])
    out = capsys.readouterr().out
    assert "- not checked, ratio to Flex: no Flex rows" in out
    assert "- not checked, dense against cuDNN: no sparseflash rows it asks about" in out
    assert "- not checked, sparse efficiency: no sparseflash's dense rows" in out
    assert ("- met, ratio to Flex: every row (2 of 4 rows not compared: no Flex row)"
            in out)
    assert out.count("- met, dense against cuDNN: every row\n") == 1  # D=128 only


def test_targets_misses_print_the_decimals_that_show_them_under_the_mark(tmp_path, capsys):
    """A ratio of 1.797 against 1.8 reads 1.797x, not 1.80x; a share of 89.96% against 90%
    reads 89.96%; a miss that two decimals show (1.70x) keeps two."""
    from benchmarks import targets
    assert targets.shown_under(1.797, 1.8, 2) == "1.797"
    assert targets.shown_under(1.7, 1.8, 2) == "1.70"
    assert targets.shown_under(0.8996, 0.9, 1, 100) == "89.96"
    rows = [dict(r, tflops=180 * 1.7995) if (r["method"], r["pattern"], r["mode"])
            == ("sparseflash", "dense", "fwd+bwd") else r for r in _target_rows()]
    targets.main([str(_write(tmp_path, "r.json", [dict(gpu="G", note="n", rows=rows)])),
                  "--note", "n"])
    out = capsys.readouterr().out
    assert "`dense` D=64 fwd+bwd 1.7995x" in out and "`local(3)` D=64 fwd 1.70x*" in out


def test_targets_main_reads_the_newest_rows_of_the_noted_records(tmp_path, capsys):
    from benchmarks import targets
    old = [dict(r, tflops=1.0) for r in _target_rows()]
    path = _write(tmp_path, "r.json", [dict(gpu="G", note="run A", rows=old),
                                       dict(gpu="G", note="run B", rows=_target_rows())])
    targets.main([str(path), "--note", "run B"])
    out = capsys.readouterr().out
    assert "## G, timer cudagraph" in out and "340* (85%, 1.70x)" in out
    assert "dense backward by difference, D=64: sparseflash 4.00 ms, cuDNN 3.80 ms" in out
    with pytest.raises(SystemExit, match=r"whose note contains any of \['run C'\]"):
        targets.main([str(path), "--note", "run C"])


def test_targets_main_joins_the_records_of_several_notes(tmp_path, capsys):
    """``--note`` repeated: the rows of every record whose note contains any of them, the
    newest where two measure the same thing (a later run's D=64 rows beside an earlier
    run's D=128 ones)."""
    from benchmarks import targets
    stale = [dict(r, tflops=1.0) for r in _target_rows(d=64)]
    path = _write(tmp_path, "r.json", [
        dict(gpu="G", note="run A", rows=stale + _target_rows(d=128)),
        dict(gpu="G", note="run B", rows=_target_rows(d=64))])
    targets.main([str(path), "--note", "run A", "--note", "run B"])
    out = capsys.readouterr().out
    assert "| D=64 fwd | D=64 fwd+bwd | D=128 fwd | D=128 fwd+bwd |" in out
    assert "| `dense` (100.0%) | 400 (2.00x) | 360 (2.00x) |" in out


def test_clocks_parse_and_summarise_nvidia_smi_samples():
    from benchmarks import clocks
    lines = ["2026/11/29 09:03:40.100, 1980, 450.5, 55, 0x0000000000000000"]
    lines += [f"2026/11/29 09:03:41.{i:03d}, {1800 + i}, 690.0, 62, 0x0000000000000004"
              for i in range(40)]
    text = "\n".join(["[some warning]", *lines, "2026/11/29 09:03:44.000, 18"])
    samples = clocks.parse_samples(text)
    assert len(samples) == 41 and samples[0] == clocks.Sample(1980.0, 450.5, 55.0, 0)
    row = clocks.summarise(samples, ms_per_call=8.0)
    # The first SETTLE samples are left out: the idle one among them.
    assert row["samples"] == 41 - clocks.SETTLE
    assert row["sm_mhz"] == statistics.median(1800 + i for i in range(19, 40))
    assert row["watts"] == 690.0 and row["joules"] == pytest.approx(5.52)
    assert row["reasons"] == ["sw_power_cap"]


def test_clocks_reason_names_and_too_few_samples():
    from benchmarks import clocks
    assert clocks.reason_names(0x4 | 0x40 | 0x8000) == ["sw_power_cap", "hw_thermal",
                                                        "0x8000"]
    assert clocks.reason_names(0) == []
    few = [clocks.Sample(1900.0, 600.0, 60.0, 0)] * 5
    assert clocks.summarise(few, 1.0)["samples"] == 5  # all kept when too few to settle
    with pytest.raises(ValueError, match="no nvidia-smi samples"):
        clocks.summarise([], 1.0)


def test_clocks_main_needs_a_gpu(monkeypatch, capsys):
    from benchmarks import clocks
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert clocks.main([]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err


def test_clocks_names_the_device_by_uuid_for_nvidia_smi(monkeypatch):
    from benchmarks import clocks

    class Props:
        uuid = "58e5b9c2-0000-1111-2222-333344445555"
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 3)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: Props())
    assert clocks._smi_id() == "GPU-58e5b9c2-0000-1111-2222-333344445555"
    Props.uuid = ""
    assert clocks._smi_id() == "3"


def test_clocks_rejects_sdpa_on_a_sparse_pattern(capsys):
    from benchmarks import clocks
    with pytest.raises(SystemExit):
        clocks.main(["--methods", "sparseflash", "sdpa-cudnn", "--pattern", "local(3)"])
    assert "sdpa-cudnn can only run dense or causal attention" in capsys.readouterr().err


def test_clocks_main_appends_a_record_with_the_command_quoted(monkeypatch, tmp_path, capsys):
    from benchmarks import clocks
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "Some GPU")
    phase = clocks.summarise([clocks.Sample(1800.0, 690.0, 60.0, 4)] * 5, 8.0)
    monkeypatch.setattr(clocks, "measure", lambda *a, **kw: phase)
    out = tmp_path / "clocks.json"
    argv = ["--methods", "sparseflash", "--note", "call 4: D=64", "--out", str(out)]
    assert clocks.main(argv) == 0
    assert clocks.main(argv) == 0
    records = json.loads(out.read_text())
    assert len(records) == 2 and records[0]["gpu"] == "Some GPU"
    assert records[0]["command"] == ("python -m benchmarks.clocks --methods sparseflash "
                                     f"--note 'call 4: D=64' --out {out}")
    assert [r["dtype"] for r in records[0]["rows"]] == ["bfloat16", "float16", "float16",
                                                        "bfloat16"]
    assert records[0]["rows"][0]["reasons"] == ["sw_power_cap"]
    assert "sw_power_cap" in capsys.readouterr().out
