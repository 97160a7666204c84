"""The syntax tree of a pattern. Every node keeps the source span it came from, so that
errors found later (at compile time, when symbolic arguments get their values) can still
point at the offending characters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Tuple, Union

import sympy

from .errors import Span


@dataclass(frozen=True)
class Number:
    """An integer argument, possibly symbolic in ``n`` (the number of key blocks)."""
    expr: sympy.Expr
    span: Span


@dataclass(frozen=True)
class Call:
    """A primitive with its arguments: ``local(2)``, ``random(2, seed=3)``, ``butterfly``.

    ``args`` holds :class:`Number` nodes, or pattern nodes for primitives (``per_head``) that
    take patterns. ``kwargs`` maps keyword names to ``(Number, span of the keyword)``.
    """
    name: str
    args: Tuple["Node", ...]
    kwargs: Tuple[Tuple[str, Number, Span], ...]
    span: Span
    name_span: Span


@dataclass(frozen=True)
class Preset:
    """A named pattern from ``layouts/NAME.sfl``, already parsed."""
    name: str
    body: "Pattern"
    span: Span


@dataclass(frozen=True)
class BinaryOp:
    """``left op right`` with op one of ``|`` (union), ``&`` (intersection), ``-`` (difference)."""
    op: str
    left: "Node"
    right: "Node"
    span: Span


@dataclass(frozen=True)
class Complement:
    """``~operand``."""
    operand: "Node"
    span: Span


Node = Union[Call, Preset, BinaryOp, Complement]


@dataclass(frozen=True)
class Pattern:
    """A parsed pattern: the source text and its tree. Hashable, so it can key caches."""
    text: str
    root: Node = field(compare=False)
    source: str = field(default="", compare=False)  # file name for presets, "" for user text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Pattern({self.text!r})"
