"""Named patterns: one ``layouts/NAME.sfl`` file per preset, each with a header comment
citing its source. A preset name can be used inside any pattern (``bigbird & causal``);
primitives win over presets of the same name."""

from __future__ import annotations

import importlib.resources
from functools import lru_cache
from pathlib import Path
from typing import Dict

from .errors import LayoutError


@lru_cache(maxsize=1)
def _preset_dir() -> Path:
    # In a source checkout (and an editable install) the files sit in the repository's
    # layouts/; a regular install ships them as the package data 'sparseflash.presets'.
    checkout = Path(__file__).resolve().parents[2] / "layouts"
    if checkout.is_dir():
        return checkout
    return Path(str(importlib.resources.files("sparseflash.presets")))


@lru_cache(maxsize=1)
def available() -> Dict[str, Path]:
    """``{name: path}`` of every preset file."""
    from .primitives import REGISTRY
    files = sorted(_preset_dir().glob("*.sfl"))
    return {f.stem: f for f in files if f.stem not in REGISTRY}


def text(name: str) -> str:
    """The source text of preset ``name``."""
    try:
        return available()[name].read_text()
    except KeyError:
        raise LayoutError(f"no preset named '{name}'") from None


_loading: set = set()


@lru_cache(maxsize=None)
def load(name: str):
    """Parse preset ``name``; errors point into the preset file."""
    from .parser import parse
    path = available()[name]
    if name in _loading:
        raise LayoutError(f"preset '{name}' refers to itself (through {sorted(_loading)})")
    _loading.add(name)
    try:
        return parse(path.read_text(), source=str(path.name))
    finally:
        _loading.discard(name)
