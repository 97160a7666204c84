"""The pattern language: text -> AST -> Layout (block mask + kernel tables).

Nothing in here imports Triton: layouts compile on any machine.
"""

from .ast import Pattern
from .compiler import compile_layout
from .errors import LayoutError
from .layout import CODE_ANTICAUSAL, CODE_BOUNDS, CODE_CAUSAL, Layout
from .parser import parse
from .primitives import REGISTRY as PRIMITIVES
from .symbolic import nnz_growth

__all__ = ["Pattern", "compile_layout", "LayoutError", "Layout", "parse", "PRIMITIVES",
           "nnz_growth", "CODE_BOUNDS", "CODE_CAUSAL", "CODE_ANTICAUSAL"]
