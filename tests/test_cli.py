"""`python -m sparseflash show ...`: picture, density, nnz, growth, --png, and errors."""

import subprocess
import sys
from pathlib import Path

import pytest

from sparseflash.cli import main

from layout_brute import one_torch_thread  # noqa: F401  (autouse fixture)

ROOT = Path(__file__).resolve().parents[1]


def run_main(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_module_entry_point_subprocess(tmp_path):
    png = tmp_path / "layout.png"
    proc = subprocess.run(
        [sys.executable, "-m", "sparseflash", "show", "local(1) & causal", "--seq-len", "512",
         "--block", "128", "--png", str(png)],
        capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1:5] == ["▒···", "█▒··", "·█▒·", "··█▒"]
    assert "nnz = 7 (3 full, 4 partial)" in proc.stdout
    assert "density = 43.75%" in proc.stdout
    assert "nnz growth in n (blocks per side): 2*n - 1" in proc.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_module_entry_point_error_subprocess():
    proc = subprocess.run([sys.executable, "-m", "sparseflash", "show", "locl(1)",
                           "--seq-len", "512"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "error: unknown primitive or preset 'locl'" in proc.stderr
    assert "did you mean 'local'" in proc.stderr
    assert "  locl(1)\n  ^^^^" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_show_picture_density_nnz_growth(capsys):
    code, out, _ = run_main(capsys, "show", "local(1)", "--seq-len", "512", "--block", "128")
    assert code == 0
    lines = out.splitlines()
    assert lines[1:5] == ["██··", "███·", "·███", "··██"]
    assert "nnz = 10 (10 full, 0 partial)" in out
    assert "density = 62.50%" in out
    assert "nnz growth in n (blocks per side): 3*n - 2" in out


@pytest.mark.parametrize("pattern,growth", [
    ("local(2)", "5*n - 6"),
    ("butterfly", "n*log2(n) + n"),
    ("global(1)", "2*n - 1"),
    ("dense", "n**2"),
])
def test_show_growth(capsys, pattern, growth):
    code, out, _ = run_main(capsys, "show", pattern, "--seq-len", "1024", "--block", "64")
    assert code == 0
    assert f"nnz growth in n (blocks per side): {growth}\n" in out


def test_show_ragged_and_kv(capsys):
    code, out, _ = run_main(capsys, "show", "dense", "--seq-len", "40", "--kv-seq-len", "20",
                            "--block", "16", "--no-growth")
    assert code == 0
    # 3 x 2 blocks; the last key block is ragged (20 % 16 != 0): partial.
    assert out.splitlines()[1:4] == ["█▒", "█▒", "█▒"]
    assert "1 head(s) x 3 x 2; nnz = 6 (3 full, 3 partial)" in out
    assert "growth" not in out


def test_show_heads(capsys):
    code, out, _ = run_main(capsys, "show", "per_head(local(0), dense)", "--seq-len", "64",
                            "--block", "16", "--heads", "2")
    assert code == 0
    assert "head 0:" in out and "head 1:" in out
    assert "2 head(s) x 4 x 4; nnz = 20" in out
    assert "n**2 + n" in out


def test_show_large_grid_is_downsampled(capsys):
    code, out, _ = run_main(capsys, "show", "local(2) | global(1)", "--seq-len", "100000",
                            "--no-growth")
    assert code == 0
    picture = out.splitlines()[1:-2]
    assert 0 < len(picture) <= 64 and all(len(line) <= 64 for line in picture)
    assert "each cell covers several blocks" in out


def test_png(capsys, tmp_path):
    path = tmp_path / "bigbird.png"
    code, out, _ = run_main(capsys, "show", "bigbird & causal", "--seq-len", "4096",
                            "--png", str(path), "--no-growth")
    assert code == 0
    assert f"wrote {path}" in out
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 1000


@pytest.mark.parametrize("argv,needles", [
    (["show", "local(1) | locl(2)", "--seq-len", "512"],
     ["error: unknown primitive or preset 'locl'", "  local(1) | locl(2)\n             ^^^^"]),
    (["show", "local(1", "--seq-len", "512"],
     ["unbalanced parentheses", "  local(1\n       ^"]),
    (["show", "strided(n - 10)", "--seq-len", "512"],
     ["must be a positive integer", "  strided(n - 10)\n          ^^^^^^"]),
    (["show", "per_head(local(1))", "--seq-len", "512"], ["num_heads"]),
    (["show", "local(1)", "--seq-len", "512", "--block", "100"],
     ["block must be a power of two >= 16, got 100"]),
    (["show", "local(1)", "--seq-len", "0"], ["seq_len must be a positive integer"]),
    (["show", "", "--seq-len", "10"], ["empty pattern"]),
])
def test_errors_exit_2_with_the_caret_message(capsys, argv, needles):
    code, out, err = run_main(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    for needle in needles:
        assert needle in err, err


def test_bad_command_line_exits_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["show", "local(1)"])  # --seq-len missing
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["show", "local(1)", "--seq-len", "ten"])
    assert info.value.code == 2


def test_growth_undefined_for_small_n_is_reported_not_fatal(capsys):
    code, out, _ = run_main(capsys, "show", "strided(log2(n) - 5)", "--seq-len", "8192",
                            "--block", "128")
    assert code == 0
    assert "nnz growth in n (blocks per side): not defined for every n" in out


def test_presets_command(capsys):
    code, out, _ = run_main(capsys, "presets")
    assert code == 0
    assert "bigbird" in out and "local(1) | global(2) | random(3)" in out
    assert "primitives: " in out and "butterfly" in out
