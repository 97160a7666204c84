"""How the number of on blocks grows with the number of blocks n, as a sympy expression.

The pattern is compiled on square grids of n = 16 ... 2048 blocks and the counts are
fitted, exactly, by the simplest combination of a few growth terms with rational
coefficients (``5*n - 6`` for ``local(2)``, ``n*log2(n) + n`` for ``butterfly``). Patterns
with no exact fit of that form (``strided(sqrt(n))`` rounds its argument) get the growth
order ``O(n**p)`` read off the largest sizes.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import List, Optional

import numpy as np
import sympy

from .parser import N_BLOCKS

n = N_BLOCKS
_LOG2 = sympy.Function("log2")  # printed as log2(n), the way users write it
_BASIS = [n**2, n * _LOG2(n), n**sympy.Rational(3, 2), n, sympy.sqrt(n), _LOG2(n), sympy.Integer(1)]
_SIZES = [2**k for k in range(4, 12)]
_MAX_TERMS = 4


def _values(term: sympy.Expr, sizes: List[int]) -> np.ndarray:
    f = sympy.lambdify(n, term.replace(_LOG2, lambda x: sympy.log(x, 2)), "numpy")
    return np.broadcast_to(np.asarray(f(np.array(sizes, dtype=float)), dtype=float),
                           (len(sizes),)).copy()


def _exact_fit(counts: np.ndarray) -> Optional[sympy.Expr]:
    columns = [_values(t, _SIZES) for t in _BASIS]
    for size in range(1, _MAX_TERMS + 1):
        for chosen in itertools.combinations(range(len(_BASIS)), size):
            a = np.stack([columns[c] for c in chosen], axis=1)
            coef, *_ = np.linalg.lstsq(a, counts, rcond=None)
            rational = [sympy.nsimplify(round(c, 6), rational=True, tolerance=1e-6) for c in coef]
            if any(r == 0 for r in rational) or any(abs(r.q) > 1024 for r in rational):
                continue
            predicted = a @ np.array([float(r) for r in rational])
            if np.all(np.abs(predicted - counts) < 1e-6 * np.maximum(1, counts)):
                return sympy.Add(*[r * _BASIS[c] for r, c in zip(rational, chosen)])
    return None


@lru_cache(maxsize=64)
def nnz_growth(pattern: str, num_heads: Optional[int] = None) -> sympy.Expr:
    """nnz (summed over heads) of ``pattern`` on an n x n block grid, as a function of n."""
    from .compiler import compile_layout
    block = 16
    counts = np.array([compile_layout(pattern, size * block, block=block,
                                      num_heads=num_heads).nnz for size in _SIZES], dtype=float)
    fit = _exact_fit(counts)
    if fit is not None:
        return fit
    # No exact closed form among the basis: the slope of log(nnz) vs log(n) at the top end.
    big = counts[-3:]
    if np.any(big <= 0):
        return sympy.Integer(int(counts[-1]))
    slope = np.polyfit(np.log(_SIZES[-3:]), np.log(big), 1)[0]
    power = sympy.Rational(round(slope * 4), 4)
    return sympy.Order(n**power, (n, sympy.oo))
