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
