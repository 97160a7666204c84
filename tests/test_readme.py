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
