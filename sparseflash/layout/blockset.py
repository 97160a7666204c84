"""Lazy sets of blocks on an ``nq x nk`` grid, with union, intersection, difference and
complement that cost time and memory in the size of their operands, not of the grid.

A block ``(i, j)`` is the flat key ``i * nk + j``. Each set can *enumerate* its sorted keys
and test *membership* of given keys. An intersection enumerates its smaller operand and
filters it by the other's membership test, so ``local(3) & causal`` never lists the
``nq * nk / 2`` blocks of ``causal``. Only a bare complement (``~local(1)``) or a dense
primitive lists a dense grid, and then the result really is that dense.
"""

from __future__ import annotations

from typing import Callable, Optional

import torch


class BlockSet:
    """Base class. Subclasses implement ``_keys`` and ``contains``; ``size`` is an estimate
    used only to pick the cheaper side of an intersection."""

    def __init__(self, nq: int, nk: int, size: int):
        self.nq, self.nk, self.size = nq, nk, size
        self._cache: Optional[torch.Tensor] = None

    def keys(self) -> torch.Tensor:
        """Sorted, unique int64 keys of the on blocks."""
        if self._cache is None:
            self._cache = self._keys()
        return self._cache

    def _keys(self) -> torch.Tensor:
        raise NotImplementedError

    def contains(self, keys: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    # Operators build lazy nodes; see the module docstring for their costs.
    def __or__(self, other: "BlockSet") -> "BlockSet":
        return Union(self, other)

    def __and__(self, other: "BlockSet") -> "BlockSet":
        return Intersection(self, other)

    def __sub__(self, other: "BlockSet") -> "BlockSet":
        return Difference(self, other)

    def __invert__(self) -> "BlockSet":
        return Complement(self)


def _member(sorted_keys: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    if sorted_keys.numel() == 0:
        return torch.zeros_like(keys, dtype=torch.bool)
    pos = torch.searchsorted(sorted_keys, keys).clamp_(max=sorted_keys.numel() - 1)
    return sorted_keys[pos] == keys


class Primitive(BlockSet):
    """A registry primitive: ``enumerate(nq, nk, **args)`` and ``contains(i, j, nq, nk, **args)``
    (the latter may be ``None``: membership then searches the enumeration)."""

    def __init__(self, nq: int, nk: int, size: int, enumerate_fn: Callable,
                 contains_fn: Optional[Callable], args: dict):
        super().__init__(nq, nk, size)
        self.enumerate_fn, self.contains_fn, self.args = enumerate_fn, contains_fn, args

    def _keys(self) -> torch.Tensor:
        return self.enumerate_fn(self.nq, self.nk, **self.args)

    def contains(self, keys: torch.Tensor) -> torch.Tensor:
        if self.contains_fn is None:
            return _member(self.keys(), keys)
        return self.contains_fn(keys // self.nk, keys % self.nk, self.nq, self.nk, **self.args)


class Explicit(BlockSet):
    """A set given by its sorted keys."""

    def __init__(self, nq: int, nk: int, keys: torch.Tensor):
        super().__init__(nq, nk, keys.numel())
        self._cache = keys

    def contains(self, keys: torch.Tensor) -> torch.Tensor:
        return _member(self.keys(), keys)


class Union(BlockSet):
    def __init__(self, a: BlockSet, b: BlockSet):
        super().__init__(a.nq, a.nk, min(a.size + b.size, a.nq * a.nk))
        self.a, self.b = a, b

    def _keys(self):
        return torch.unique(torch.cat([self.a.keys(), self.b.keys()]))

    def contains(self, keys):
        return self.a.contains(keys) | self.b.contains(keys)


class Intersection(BlockSet):
    def __init__(self, a: BlockSet, b: BlockSet):
        super().__init__(a.nq, a.nk, min(a.size, b.size))
        self.a, self.b = a, b

    def _keys(self):
        small, large = (self.a, self.b) if self.a.size <= self.b.size else (self.b, self.a)
        keys = small.keys()
        return keys[large.contains(keys)]

    def contains(self, keys):
        return self.a.contains(keys) & self.b.contains(keys)


class Difference(BlockSet):
    def __init__(self, a: BlockSet, b: BlockSet):
        super().__init__(a.nq, a.nk, a.size)
        self.a, self.b = a, b

    def _keys(self):
        keys = self.a.keys()
        return keys[~self.b.contains(keys)]

    def contains(self, keys):
        return self.a.contains(keys) & ~self.b.contains(keys)


class Complement(BlockSet):
    def __init__(self, a: BlockSet):
        super().__init__(a.nq, a.nk, max(a.nq * a.nk - a.size, 0))
        self.a = a

    def _keys(self):
        # Intersections and differences never call this; only a complement that is itself
        # the result (or part of a union) lists the grid, because then the result is dense.
        universe = torch.arange(self.nq * self.nk, dtype=torch.long)
        return universe[~self.a.contains(universe)]

    def contains(self, keys):
        return ~self.a.contains(keys)
