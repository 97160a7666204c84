"""The README stays true: its Quick-start test command is the one CI runs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _quick_start_commands():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_quick_start_has_two_commands():
    commands = _quick_start_commands()
    assert len(commands) == 2
    assert "python -m benchmarks.lra" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert _quick_start_commands()[1] in ci


def test_readme_has_a_language_reference():
    text = (ROOT / "README.md").read_text()
    from sparseflash.layout.primitives import REGISTRY
    for name in REGISTRY:
        assert f"`{name}" in text, f"primitive {name} is not documented in the README"


def test_relative_links_in_the_docs_resolve():
    """Every relative link and picture in README.md and docs/*.md names a file that
    exists (the speed record moved to docs/speed.md in session 31, its paths with it)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    missing = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target:
                continue
            if not (page.parent / target).exists():
                missing.append(f"{page.relative_to(ROOT)}: {target}")
    assert not missing, missing


def _targets_table_lines(results: str, note: str, dtype: str, peer: bool) -> list:
    """The table ``benchmarks.targets`` prints for the rows of ``results`` whose note names
    ``note``, at 16K tokens in ``dtype``, one string a line."""
    from benchmarks import plots, targets
    rows = targets.select(plots.load_records([ROOT / "benchmarks" / "results" / results]),
                          note)
    rows = [r for r in rows if r["N"] == 16384 and r["dtype"] == dtype]
    table = targets.Table(rows)
    text = targets.peer_table(table) if peer else targets.readme_table(table)
    return text.splitlines()


def test_readme_speed_tables_are_the_recorded_runs():
    """The README's speed tables (the H200's two, the H100's one) are, line for line, what
    `python -m benchmarks.targets` prints from the records they cite (the README names the
    note of each)."""
    readme = (ROOT / "README.md").read_text().splitlines()
    for results, note, peer in (("NVIDIA-H200-attention-cudagraph.json", "s56 call 2", False),
                                ("NVIDIA-H200-attention.json", "s51 call 3", True),
                                ("NVIDIA-H100-attention-cudagraph.json", "s58 call 2", False)):
        lines = _targets_table_lines(results, note, "bfloat16", peer)
        assert len(lines) > 4, f"no rows under {note!r} in {results}"
        assert f"`{note}`" in "\n".join(readme), f"the README does not cite {note!r}"
        missing = [line for line in lines if line not in readme]
        assert not missing, f"README lines not printed from {note!r}: {missing}"
