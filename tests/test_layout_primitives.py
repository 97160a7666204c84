"""Every primitive against a brute-force definition written from the issue's table.

Token-level via ``to_dense()``, block-level via ``.mask`` and ``.full``, on ragged and
non-power-of-two sizes, with kv_seq_len != seq_len, and with symbolic arguments.
"""

import subprocess
import sys

import pytest
import torch

import sparseflash
from sparseflash import LayoutError, compile_layout
from sparseflash.layout.primitives import REGISTRY

from layout_brute import (one_torch_thread,  # noqa: F401  (autouse fixture)
                          block_views_fast, causal_tokens, ceil_div, ceil_log2, ceil_sqrt,
                          expand, nblocks, p_butterfly, p_chunk, p_dense, p_dilated, p_fixed,
                          p_global, p_local, p_none, p_strided, tokens_of)

# (seq_len, kv_seq_len, block): ragged, non-power-of-two, tiny, kv != q both ways.
SHAPES = [
    (1, 1, 16),
    (17, 17, 16),
    (100, 100, 32),
    (1000, 1000, 128),
    (1000, 1000, 16),   # 63 x 63 blocks
    (100, 37, 16),      # more query blocks than key blocks, ragged kv
    (37, 100, 16),      # more key blocks than query blocks
    (300, 500, 32),
    (64, 64, 16),       # exact multiples: no ragged block
    (129, 1, 128),
]

HUGE = 10 ** 30

# pattern -> block predicate factory taking n (number of key blocks), from the issue table.
BLOCK_PRIMITIVES = {
    "dense": lambda n: p_dense,
    "none": lambda n: p_none,
    "local(0)": lambda n: p_local(0),
    "local(1)": lambda n: p_local(1),
    "local(w=3)": lambda n: p_local(3),
    "strided(1)": lambda n: p_strided(1),
    "strided(3)": lambda n: p_strided(3),
    "strided(5)": lambda n: p_strided(5),
    "dilated(0, 2)": lambda n: p_dilated(0, 2),
    "dilated(1, 2)": lambda n: p_dilated(1, 2),
    "dilated(2, 3)": lambda n: p_dilated(2, 3),
    "dilated(w=3, d=1)": lambda n: p_dilated(3, 1),
    "chunk(1)": lambda n: p_chunk(1),
    "chunk(3)": lambda n: p_chunk(3),
    "chunk(4)": lambda n: p_chunk(4),
    "fixed(4)": lambda n: p_fixed(4, 1),
    "fixed(3, c=2)": lambda n: p_fixed(3, 2),
    "fixed(l=2, c=2)": lambda n: p_fixed(2, 2),
    "fixed(5, 3)": lambda n: p_fixed(5, 3),
    "global(0)": lambda n: p_global(0),
    "global(1)": lambda n: p_global(1),
    "global(3)": lambda n: p_global(3),
    "butterfly": lambda n: p_butterfly(),
    "butterfly(1)": lambda n: p_butterfly(1),
    "butterfly(3)": lambda n: p_butterfly(3),
    "butterfly(f=2)": lambda n: p_butterfly(2),
    # Arguments far beyond the grid: must behave like their limits, not overflow.
    "local(10^30)": lambda n: p_local(HUGE),
    "strided(10^30)": lambda n: p_strided(HUGE),
    "dilated(10^30, 10^30)": lambda n: p_dilated(HUGE, HUGE),
    "dilated(1, 10^30)": lambda n: p_dilated(1, HUGE),
    "chunk(10^30)": lambda n: p_chunk(HUGE),
    "fixed(10^30)": lambda n: p_fixed(HUGE, 1),
    "fixed(10^30, c=10^29)": lambda n: p_fixed(HUGE, HUGE // 10),
    "global(10^30)": lambda n: p_global(HUGE),
    "butterfly(10^30)": lambda n: p_butterfly(HUGE),
}

# Symbolic arguments: n is the number of key blocks, the value is rounded up.
SYMBOLIC = {
    "strided(sqrt(n))": lambda n: p_strided(ceil_sqrt(n)),
    "strided(n^(1/2))": lambda n: p_strided(ceil_sqrt(n)),
    "local(n/16)": lambda n: p_local(ceil_div(n, 16)),
    "local(n / 16 - 1/2)": lambda n: p_local(max(ceil_div(n - 8, 16), 0)),
    "local(log2(n))": lambda n: p_local(ceil_log2(n)),
    "chunk(ceil(n/3))": lambda n: p_chunk(ceil_div(n, 3)),
    "chunk(floor(n/3) + 1)": lambda n: p_chunk(n // 3 + 1),
    "global(min(n, 2))": lambda n: p_global(min(n, 2)),
    "dilated(max(1, n/8), 2)": lambda n: p_dilated(max(1, ceil_div(n, 8)), 2),
    "strided(2^2)": lambda n: p_strided(4),
    "strided(-2^2 + 5)": lambda n: p_strided(1),     # -(2^2) + 5, not (-2)^2 + 5
    "local(2 * 3 - 4 / 2)": lambda n: p_local(4),     # * and / before + and -
    "local((1 + 1) * 2)": lambda n: p_local(4),
    "local(1.5)": lambda n: p_local(2),               # rounded up
    "fixed(l=max(2, n/4), c=1)": lambda n: p_fixed(max(2, ceil_div(n, 4)), 1),
    "butterfly(log2(n))": lambda n: p_butterfly(ceil_log2(n)) if n > 1 else None,
    "local(log(n))": None,  # natural log: checked separately below
}


def _check(pattern, pred, seq_len, kv_seq_len, block, extra_tokens=None):
    layout = compile_layout(pattern, seq_len, block=block, kv_seq_len=kv_seq_len)
    nq, nk = nblocks(seq_len, block), nblocks(kv_seq_len, block)
    tokens = tokens_of(pred, seq_len, kv_seq_len, block)
    if extra_tokens is not None:
        tokens = extra_tokens(tokens)
    mask, full = block_views_fast(tokens, block)
    assert layout.shape == (1, nq, nk)
    assert layout.num_heads == 1
    assert (layout.seq_len, layout.kv_seq_len, layout.block) == (seq_len, kv_seq_len, block)
    dense = layout.to_dense()
    assert dense.dtype == torch.bool and dense.shape == (1, seq_len, kv_seq_len)
    assert torch.equal(dense[0], tokens), f"{pattern}: token mask differs"
    assert torch.equal(layout.mask[0], mask), f"{pattern}: block mask differs"
    assert torch.equal(layout.full[0], full), f"{pattern}: full blocks differ"
    assert layout.nnz == int(mask.sum())
    return layout


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("pattern", list(BLOCK_PRIMITIVES))
def test_block_primitive_matches_brute_force(pattern, shape):
    seq_len, kv_seq_len, block = shape
    pred = BLOCK_PRIMITIVES[pattern](nblocks(kv_seq_len, block))
    _check(pattern, pred, seq_len, kv_seq_len, block)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("pattern", [p for p, f in SYMBOLIC.items() if f is not None])
def test_symbolic_arguments(pattern, shape):
    seq_len, kv_seq_len, block = shape
    pred = SYMBOLIC[pattern](nblocks(kv_seq_len, block))
    if pred is None:
        pytest.skip("argument undefined for this n")
    _check(pattern, pred, seq_len, kv_seq_len, block)


@pytest.mark.parametrize("nk", [1, 2, 3, 7, 8, 20, 55])
def test_natural_log_argument(nk):
    import math
    w = max(math.ceil(math.log(nk) - 1e-12), 0)  # log(1) = 0 exactly
    _check("local(log(n))", p_local(w), 16 * 5, 16 * nk, 16)


def test_n_is_the_number_of_key_blocks():
    # 3 query blocks, 10 key blocks: global(n/5) = global(2), not global(ceil(3/5)) = 1.
    _check("global(n/5)", p_global(2), 48, 160, 16)
    _check("global(n/5)", p_global(1), 160, 48, 16)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_causal_is_token_level_top_left(shape):
    seq_len, kv_seq_len, block = shape
    layout = _check("causal", p_dense, seq_len, kv_seq_len, block,
                    extra_tokens=lambda t: t & causal_tokens(seq_len, kv_seq_len))
    # The issue's classification: j < i full (unless the ragged key block), j == i
    # partial, j > i off.
    nq, nk = layout.shape[1:]
    i = torch.arange(nq)[:, None]
    j = torch.arange(nk)[None, :]
    assert torch.equal(layout.mask[0], j <= i)
    ragged = (j == nk - 1) & torch.tensor(kv_seq_len % block != 0)
    assert torch.equal(layout.full[0], (j < i) & ~ragged)


def test_causal_partial_diagonal_small_picture():
    layout = compile_layout("causal", 64, block=16)
    codes = layout.block_codes()[0]
    assert codes.tolist() == [[1, -1, -1, -1], [3, 1, -1, -1], [3, 3, 1, -1], [3, 3, 3, 1]]


def test_ragged_last_key_block_is_partial():
    layout = compile_layout("dense", 40, block=16)
    assert layout.full[0].tolist() == [[True, True, False]] * 3
    assert layout.mask[0].all()
    dense = compile_layout("dense", 48, block=16)
    assert dense.full.all()


def test_butterfly_count_power_of_two():
    # n log2 n + n blocks for n a power of two (Pixelated Butterfly's flat butterfly).
    for n in (1, 2, 4, 8, 16, 64):
        layout = compile_layout("butterfly", 16 * n, block=16)
        assert layout.nnz == n * (n.bit_length() - 1) + n


# -- random ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("r", [0, 1, 3, 100])
def test_random_exactly_min_r_n_per_row(shape, r):
    seq_len, kv_seq_len, block = shape
    nq, nk = nblocks(seq_len, block), nblocks(kv_seq_len, block)
    layout = compile_layout(f"random({r}, seed=7)", seq_len, block=block, kv_seq_len=kv_seq_len)
    assert layout.shape == (1, nq, nk)
    per_row = layout.mask[0].sum(1)
    assert per_row.tolist() == [min(r, nk)] * nq
    # Block-level primitive: every token of an on block is on.
    tokens = expand(layout.mask[0], seq_len, kv_seq_len, block)
    assert torch.equal(layout.to_dense()[0], tokens)
    mask, full = block_views_fast(tokens, block)
    assert torch.equal(layout.full[0], full)


def test_random_more_than_half_and_all():
    layout = compile_layout("random(60)", 1000, block=16)  # 63 key blocks
    assert layout.mask[0].sum(1).tolist() == [60] * 63
    assert compile_layout("random(63)", 1000, block=16).mask.all()
    assert compile_layout("random(r=10^30)", 1000, block=16).mask.all()


def _random_rows(pattern, **kw):
    return compile_layout(pattern, 1024, block=16, **kw).mask.clone()


def test_random_same_seed_same_result():
    a = _random_rows("random(3, seed=11)")
    sparseflash.layout.compiler._compile_cached.cache_clear()
    b = _random_rows("random(3, seed=11)")
    assert torch.equal(a, b)
    # Default seed is 0.
    assert torch.equal(_random_rows("random(3)"), _random_rows("random(3, seed=0)"))
    assert torch.equal(_random_rows("random(3)"), _random_rows("random(r=3, seed=0)"))


def test_random_different_seed_different_result():
    masks = [_random_rows(f"random(3, seed={s})") for s in range(4)]
    for a in range(4):
        for b in range(a + 1, 4):
            assert not torch.equal(masks[a], masks[b])


def test_random_rows_are_not_all_the_same():
    mask = _random_rows("random(3, seed=1)")[0]
    assert len({tuple(row.tolist()) for row in mask}) > 32


def test_random_independent_of_device_string():
    ref = _random_rows("random(4, seed=5)")
    for device in (None, "cpu", torch.device("cpu"), "cpu:0", torch.device("cpu", 0)):
        assert torch.equal(_random_rows("random(4, seed=5)", device=device).cpu(), ref)
    meta = compile_layout("random(4, seed=5)", 1024, block=16, device="meta")
    assert meta.kv_num_blocks.device.type == "meta"
    assert torch.equal(meta.to("cpu").mask, ref)
    if torch.cuda.is_available():
        assert torch.equal(_random_rows("random(4, seed=5)", device="cuda").cpu(), ref)


def test_random_reproducible_across_processes():
    code = ("import sparseflash, hashlib;"
            "m = sparseflash.compile_layout('random(5, seed=123)', 2000, block=16).mask;"
            "print(hashlib.sha256(m.numpy().tobytes()).hexdigest())")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip()}
    import hashlib
    here = compile_layout("random(5, seed=123)", 2000, block=16).mask
    outs.add(hashlib.sha256(here.numpy().tobytes()).hexdigest())
    assert len(outs) == 1


def test_random_independent_of_global_rng():
    torch.manual_seed(1)
    a = _random_rows("random(3, seed=2)")
    sparseflash.layout.compiler._compile_cached.cache_clear()
    torch.manual_seed(999)
    torch.rand(10)
    b = _random_rows("random(3, seed=2)")
    assert torch.equal(a, b)


def test_random_huge_seed_is_an_error_not_a_crash():
    with pytest.raises(LayoutError):
        compile_layout("random(2, seed=2^70)", 100, block=16)


# -- registry ----------------------------------------------------------------------------------
def test_registry_covers_the_issue_table():
    expected = {"dense", "none", "local", "strided", "dilated", "chunk", "fixed", "global",
                "butterfly", "random", "per_head", "causal"}
    assert expected <= set(REGISTRY)
    for prim in REGISTRY.values():
        assert prim.summary and prim.doc


def test_language_reference_is_up_to_date():
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("make_language_reference",
                                                  root / "docs" / "make_language_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (root / "docs" / "language.md").read_text() == module.render(), \
        "docs/language.md is stale: run python docs/make_language_reference.py"
