"""nnz_growth: how the number of on blocks grows with n blocks per side, as sympy."""

import math

import pytest
import sympy

from sparseflash import compile_layout, nnz_growth

from layout_brute import one_torch_thread  # noqa: F401  (autouse fixture)
from layout_brute import block_grid, p_butterfly, p_dense, p_fixed, p_global, p_local, p_strided

n = sympy.Symbol("n", positive=True, integer=True)


def _value(expr, size):
    """Evaluate a growth expression (which prints log2 as log2(n)) at n = size."""
    expr = expr.replace(sympy.Function("log2"), lambda x: sympy.log(x, 2))
    value = float(expr.subs(sympy.Symbol("n", positive=True, integer=True), size))
    assert abs(value - round(value)) < 1e-9
    return round(value)


def _brute_count(pred, size):
    return int(block_grid(pred, size, size).sum())


# pattern -> (printed growth, nnz on an n x n grid computed independently)
CASES = {
    "local(2)": ("5*n - 6", lambda s: _brute_count(p_local(2), s)),
    "local(0)": ("n", lambda s: s),
    "butterfly": ("n*log2(n) + n", lambda s: _brute_count(p_butterfly(), s)),
    "global(1)": ("2*n - 1", lambda s: _brute_count(p_global(1), s)),
    "global(2)": ("4*n - 4", lambda s: _brute_count(p_global(2), s)),
    "dense": ("n**2", lambda s: s * s),
    "causal": ("n**2/2 + n/2", lambda s: s * (s + 1) // 2),
    "local(1) & causal": ("2*n - 1", lambda s: 2 * s - 1),
    "strided(2)": ("n**2/2", lambda s: _brute_count(p_strided(2), s)),
    "chunk(4)": ("4*n", lambda s: 4 * s),
    "fixed(4)": ("n**2/4 + 3*n", lambda s: _brute_count(p_fixed(4, 1), s)),
    "random(3)": ("3*n", lambda s: 3 * s),
    # the diagonal blocks stay on (partial, q < k): n(n-1)/2 + n
    "dense - causal": ("n**2/2 + n/2", lambda s: s * (s + 1) // 2),
}


@pytest.mark.parametrize("pattern", list(CASES))
def test_growth_expressions(pattern):
    printed, count = CASES[pattern]
    growth = nnz_growth(pattern)
    assert str(growth) == printed
    for size in (16, 32, 64, 128):
        assert _value(growth, size) == count(size), (pattern, size)
        # and it is the real nnz of the compiled layout
        assert compile_layout(pattern, 16 * size, block=16).nnz == count(size)


def test_butterfly_growth_counts_n_log2_n_plus_n():
    growth = nnz_growth("butterfly")
    for k in range(4, 9):
        size = 2 ** k
        assert _value(growth, size) == size * k + size


def test_growth_with_heads_sums_over_heads():
    growth = nnz_growth("per_head(local(0), dense)", num_heads=2)
    assert str(growth) == "n**2 + n"
    growth3 = nnz_growth("per_head(local(0), dense)", num_heads=3)
    assert str(growth3) == "n**2 + 2*n"


def test_none_grows_as_zero():
    assert nnz_growth("none") == 0


def test_rounded_symbolic_argument_gives_an_order():
    growth = nnz_growth("strided(sqrt(n))")
    # ceil(sqrt(n)) has no exact closed form in the basis: the growth order is reported.
    assert isinstance(growth, sympy.Order)
    assert growth.expr == n ** sympy.Rational(3, 2)


def test_sublinear_terms_combined():
    growth = nnz_growth("local(2) | global(1) | butterfly")
    for size in (16, 64, 256):
        size_k = int(math.log2(size))
        brute = _brute_count(lambda i, j: p_local(2)(i, j) or p_global(1)(i, j)
                             or p_butterfly()(i, j), size)
        assert _value(growth, size) == brute, (growth, size, size_k)


def test_growth_is_cached():
    assert nnz_growth("local(3)") is nnz_growth("local(3)")


def test_p_dense_helper():
    assert _brute_count(p_dense, 5) == 25
