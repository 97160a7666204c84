"""Independent brute-force definitions of the pattern language, written from the table in
issue 2 (not from the implementation): block predicates in plain Python integers, expanded
to token-level masks, plus the block-level views (`mask`, `full`) derived from tokens.

Used by the layout tests as the oracle; nothing here imports sparseflash.layout internals.
"""

from __future__ import annotations

import math

import pytest
import torch


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Layout tests handle small tensors, where intra-op threads only add overhead (and on a
    busy 2-core machine each parallel region can stall for a scheduler slice). Modules that
    import this fixture run single-threaded; the previous setting is restored after."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


# -- block predicates, straight from the table ---------------------------------------
def p_dense(i, j):
    return True


def p_none(i, j):
    return False


def p_local(w):
    return lambda i, j: abs(i - j) <= w


def p_strided(s):
    return lambda i, j: (i - j) % s == 0


def p_dilated(w, d):
    return lambda i, j: abs(i - j) <= w * d and (i - j) % d == 0


def p_chunk(s):
    return lambda i, j: i // s == j // s


def p_fixed(l, c=1):
    return lambda i, j: i // l == j // l or j % l >= l - c


def p_global(g):
    return lambda i, j: i < g or j < g


def _is_pow2(x):
    return x > 0 and x & (x - 1) == 0


def p_butterfly(f=None):
    def pred(i, j):
        x = i ^ j
        if x == 0:
            return True
        return _is_pow2(x) and (f is None or x.bit_length() - 1 < f)
    return pred


# -- shapes and expansion ---------------------------------------------------------------------
def nblocks(tokens, block):
    return -(-tokens // block)


def block_grid(pred, nq, nk):
    """bool (nq, nk) from a block predicate, evaluated cell by cell."""
    return torch.tensor([[bool(pred(i, j)) for j in range(nk)] for i in range(nq)],
                        dtype=torch.bool).reshape(nq, nk)


def expand(grid, seq_len, kv_seq_len, block):
    """Block grid (nq, nk) -> token mask (seq_len, kv_seq_len): token (q, k) takes block
    (q // block, k // block)."""
    q = torch.arange(seq_len) // block
    k = torch.arange(kv_seq_len) // block
    return grid[q][:, k]


def causal_tokens(seq_len, kv_seq_len):
    q = torch.arange(seq_len)[:, None]
    k = torch.arange(kv_seq_len)[None, :]
    return q >= k


def tokens_of(pred, seq_len, kv_seq_len, block):
    nq, nk = nblocks(seq_len, block), nblocks(kv_seq_len, block)
    return expand(block_grid(pred, nq, nk), seq_len, kv_seq_len, block)


# -- block views of a token mask ---------------------------------------------------------------
def block_views(tokens, block):
    """Token mask (seq_len, kv_seq_len) -> (mask, full), each bool (nq, nk).

    mask: some token of the block is on. full: every in-range token of the block is on
    and the block's key range is complete (a ragged last key block needs the bounds mask,
    so it is never full).
    """
    seq_len, kv_seq_len = tokens.shape
    nq, nk = nblocks(seq_len, block), nblocks(kv_seq_len, block)
    mask = torch.zeros(nq, nk, dtype=torch.bool)
    full = torch.zeros(nq, nk, dtype=torch.bool)
    for i in range(nq):
        for j in range(nk):
            cell = tokens[i * block:(i + 1) * block, j * block:(j + 1) * block]
            mask[i, j] = bool(cell.any())
            full[i, j] = bool(cell.all()) and (j + 1) * block <= kv_seq_len
    return mask, full


def block_views_fast(tokens, block):
    """Same as :func:`block_views`, vectorised (pads with 'on' for the all() test and with
    'off' for the any() test, so out-of-range tokens never decide)."""
    seq_len, kv_seq_len = tokens.shape
    nq, nk = nblocks(seq_len, block), nblocks(kv_seq_len, block)
    pad_any = torch.zeros(nq * block, nk * block, dtype=torch.bool)
    pad_all = torch.ones(nq * block, nk * block, dtype=torch.bool)
    pad_any[:seq_len, :kv_seq_len] = tokens
    pad_all[:seq_len, :kv_seq_len] = tokens
    mask = pad_any.view(nq, block, nk, block).any(3).any(1)
    full = pad_all.view(nq, block, nk, block).all(3).all(1)
    if kv_seq_len % block:
        full[:, -1] = False
    return mask, full


# -- symbolic arguments evaluated by hand (n = number of key blocks, rounded up) --------------
def ceil_sqrt(x):
    return math.isqrt(x - 1) + 1 if x > 0 else 0


def ceil_log2(x):
    return (x - 1).bit_length()


def ceil_div(a, b):
    return -(-a // b)
