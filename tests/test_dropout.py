"""Dropout inside the kernels: reproducibility, statistics, the keep-mask hook against its
torch twin bit for bit, agreement of the two backends, p=0 being exactly no dropout, and
gradients against a float64 golden run that uses the same keep-mask."""

import os

# TRITON_INTERPRET is set by tests/conftest.py on machines without CUDA.

import math  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash import compile_layout  # noqa: E402
from sparseflash.kernels.common import keep_mask  # noqa: E402
from sparseflash.reference import dense_attention, dropout_keep_mask  # noqa: E402

BACKENDS = ["triton", "torch"]


def make_qkv(B, Hq, Hkv, N, Nk, D, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(B, Hq, N, D, generator=g).to(dtype),
            torch.randn(B, Hkv, Nk, D, generator=g).to(dtype),
            torch.randn(B, Hkv, Nk, D, generator=g).to(dtype))


def run(q, k, v, layout, *, manual_seed, do=None, **kw):
    """Output and (dq, dk, dv) for ``do`` after ``torch.manual_seed(manual_seed)``."""
    q, k, v = (x.detach().requires_grad_() for x in (q, k, v))
    torch.manual_seed(manual_seed)
    out = sparseflash.attention(q, k, v, layout, **kw)
    if do is None:
        do = torch.randn(out.shape, generator=torch.Generator().manual_seed(99))
    grads = torch.autograd.grad(out, (q, k, v), do.to(out.dtype))
    return (out.detach(),) + grads


def library_seed(manual_seed):
    """The Philox seed ``attention`` draws after ``torch.manual_seed(manual_seed)``: one
    ``torch.randint(0, 2**62, (1,))`` from the global CPU generator."""
    torch.manual_seed(manual_seed)
    return int(torch.randint(0, 2**62, (1,), dtype=torch.int64).item())


def full_keep(seed, p, B, H, N, Nk):
    bh = torch.arange(B * H).view(B, H, 1, 1)
    return dropout_keep_mask(seed, p, bh, torch.arange(N).view(1, 1, N, 1),
                             torch.arange(Nk).view(1, 1, 1, Nk))


# ----------------------------------------------------------------------------- reproducibility
@pytest.mark.parametrize("backend", BACKENDS)
def test_same_seed_same_output_and_grads(backend):
    q, k, v = make_qkv(1, 4, 2, 50, 40, 16)
    kw = dict(block=32, dropout_p=0.3, backend=backend)
    a = run(q, k, v, "causal | global(1)", manual_seed=7, **kw)
    b = run(q, k, v, "causal | global(1)", manual_seed=7, **kw)
    for x, y in zip(a, b):
        assert torch.equal(x, y)
    assert all(torch.isfinite(x).all() for x in a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_different_seed_different_output(backend):
    q, k, v = make_qkv(1, 2, 2, 40, 40, 16)
    kw = dict(block=16, dropout_p=0.3, backend=backend)
    a = run(q, k, v, "dense", manual_seed=1, **kw)
    b = run(q, k, v, "dense", manual_seed=2, **kw)
    for x, y in zip(a, b):
        assert not torch.equal(x, y)
    # Two calls in a row draw two seeds: different masks too.
    torch.manual_seed(3)
    o1 = sparseflash.attention(q, k, v, "dense", **kw)
    o2 = sparseflash.attention(q, k, v, "dense", **kw)
    assert not torch.equal(o1, o2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dropout_p_zero_is_no_dropout(backend):
    q, k, v = make_qkv(1, 2, 1, 40, 33, 16)
    kpm = torch.zeros(1, 33, dtype=torch.bool)
    kpm[0, -5:] = True
    kw = dict(block=16, backend=backend, key_padding_mask=kpm)
    base = run(q, k, v, "causal", manual_seed=0, **kw)
    for p in (0.0, 0):
        other = run(q, k, v, "causal", manual_seed=1, dropout_p=p, **kw)
        for x, y in zip(base, other):
            assert torch.equal(x, y)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dropout_keeps_lse(backend):
    """Dropout acts on the probabilities after the softmax: the lse is unchanged."""
    q, k, v = make_qkv(1, 2, 2, 40, 40, 16)
    _, lse0 = sparseflash.attention(q, k, v, "causal", block=16, backend=backend,
                                    return_lse=True)
    torch.manual_seed(0)
    _, lse1 = sparseflash.attention(q, k, v, "causal", block=16, backend=backend,
                                    dropout_p=0.5, return_lse=True)
    torch.testing.assert_close(lse0, lse1, atol=0, rtol=0)


# ----------------------------------------------------------------------------- the keep-mask
SEEDS = [0, 1, 12345, 2**31 - 1, 2**31 + 5, 2**32, 2**40 + 7, 2**62 - 1]


@pytest.mark.triton_on_cpu
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("p,bh", [(0.1, 0), (0.5, 3), (0.9, 1000)])
@pytest.mark.parametrize("tile", [16, 32])  # the per-key path and the joined words
def test_triton_keep_mask_equals_torch(seed, p, bh, tile):
    N, Nk = 37, 50
    triton_mask = keep_mask(seed, p, bh, N, Nk, "cpu", tile=tile)
    torch_mask = dropout_keep_mask(seed, p, torch.tensor(bh), torch.arange(N)[:, None],
                                   torch.arange(Nk)[None, :])
    assert triton_mask.dtype == torch.bool and triton_mask.shape == (N, Nk)
    assert torch.equal(triton_mask, torch_mask)


@pytest.mark.parametrize("seed", [3, 2**40 + 1])
def test_keep_mask_of_any_key_order(seed):
    """The torch twin has a fast path for aligned runs of eight keys (one Philox call
    each) and a general one; gathered, shuffled and unaligned keys give the same draws."""
    N, Nk = 19, 96
    whole = dropout_keep_mask(seed, 0.4, torch.tensor(2), torch.arange(N)[:, None],
                              torch.arange(Nk)[None, :])
    for keys in (torch.randperm(Nk, generator=torch.Generator().manual_seed(seed % 97)),
                 torch.arange(3, 67), torch.arange(40, 56), torch.tensor([5])):
        part = dropout_keep_mask(seed, 0.4, torch.tensor(2), torch.arange(N)[:, None],
                                 keys[None, :])
        assert torch.equal(part, whole[:, keys])


def test_draws_sharing_a_philox_call_are_uncorrelated():
    """Keys 8g..8g+7 read the halves of one Philox output: neighbouring keys must still
    be independent draws."""
    N, Nk = 512, 64
    m = dropout_keep_mask(9, 0.5, torch.tensor(0), torch.arange(N)[:, None],
                          torch.arange(Nk)[None, :]).float()
    x = m - m.mean()
    for shift in (1, 2, 7):
        corr = (x[:, :-shift] * x[:, shift:]).mean() / x.var()
        assert abs(corr.item()) < 5 / math.sqrt(N * (Nk - shift)), shift


@pytest.mark.triton_on_cpu
def test_keep_mask_depends_on_seed_and_head():
    a = keep_mask(5, 0.5, 0, 32, 32, "cpu")
    assert not torch.equal(a, keep_mask(6, 0.5, 0, 32, 32, "cpu"))
    assert not torch.equal(a, keep_mask(5, 0.5, 1, 32, 32, "cpu"))
    assert torch.equal(a, keep_mask(5, 0.5, 0, 32, 32, "cpu"))
    # Monotone in p: a larger p only drops more.
    b = keep_mask(5, 0.7, 0, 32, 32, "cpu")
    assert not (b & ~a).any()


def _binomial_ok(kept, n, p, sigmas=5.0):
    std = math.sqrt(p * (1 - p) / n)
    return abs(kept / n - (1 - p)) <= sigmas * std


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_keep_rate_statistics_of_the_mask(p):
    N = Nk = 128
    for seed in (11, 2**40 + 3):
        for bh in (0, 5):
            m = dropout_keep_mask(seed, p, torch.tensor(bh), torch.arange(N)[:, None],
                                  torch.arange(Nk)[None, :])
            assert _binomial_ok(m.sum().item(), m.numel(), p)
            # Per-row keep rates spread like independent Bernoulli draws (not degenerate).
            row_std = math.sqrt(p * (1 - p) / Nk)
            assert abs(m.float().mean(1).std().item() - row_std) < 0.3 * row_std
            assert abs(m.float().mean(0).std().item() - row_std) < 0.3 * row_std


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("p", [0.2, 0.7])
def test_keep_rate_end_to_end(backend, p):
    """q = 0 gives uniform attention, and v = 1 turns each output row into
    kept / (Nk (1 - p)): the keep count of every row is readable from the output, and
    matches the torch twin of the keep-mask exactly."""
    B, H, N, Nk, D = 1, 2, 64, 96, 16
    q = torch.zeros(B, H, N, D)
    k = torch.randn(B, H, Nk, D)
    v = torch.ones(B, H, Nk, D)
    torch.manual_seed(5)
    out = sparseflash.attention(q, k, v, "dense", block=32, dropout_p=p, backend=backend)
    kept = (out[..., 0].double() * Nk * (1 - p)).round()
    assert _binomial_ok(kept.sum().item(), B * H * N * Nk, p)
    expected = full_keep(library_seed(5), p, B, H, N, Nk).sum(-1).double()
    assert torch.equal(kept, expected)
    torch.testing.assert_close(out, out[..., :1].expand_as(out), atol=0, rtol=0)


# ----------------------------------------------------------------------------- the backends agree
@pytest.mark.parametrize("case", [
    dict(B=1, Hq=2, Hkv=2, N=50, Nk=50, layout="dense", block=16, kpm=False),
    dict(B=2, Hq=4, Hkv=2, N=70, Nk=45, layout="causal | global(1)", block=32, kpm=True),
    dict(B=1, Hq=2, Hkv=1, N=33, Nk=80, layout="per_head(local(0), dense - causal)", block=16,
         kpm=True),
    dict(B=2, Hq=2, Hkv=2, N=320, Nk=320, layout="local(0) | global(1)", block=16,
         kpm=True),
], ids=["dense", "gqa-causal-padding", "mqa-per-head", "split-global-row"])
@pytest.mark.triton_on_cpu
def test_backends_agree_with_dropout(case):
    q, k, v = make_qkv(case["B"], case["Hq"], case["Hkv"], case["N"], case["Nk"], 16, seed=4)
    kpm = None
    if case["kpm"]:
        kpm = torch.rand(case["B"], case["Nk"], generator=torch.Generator().manual_seed(3)) < 0.25
    kw = dict(block=case["block"], dropout_p=0.25, key_padding_mask=kpm)
    a = run(q, k, v, case["layout"], manual_seed=21, backend="triton", **kw)
    b = run(q, k, v, case["layout"], manual_seed=21, backend="torch", **kw)
    for name, x, y in zip(("out", "dq", "dk", "dv"), a, b):
        torch.testing.assert_close(x, y, atol=2e-5, rtol=1e-5, msg=name)


# ----------------------------------------------------------------------------- golden gradients
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", [
    dict(B=1, Hq=2, Hkv=2, N=40, Nk=40, D=16, layout="dense", block=16, p=0.1, kpm=False),
    dict(B=2, Hq=4, Hkv=2, N=50, Nk=70, D=40, layout="causal | global(1)", block=32, p=0.5,
         kpm=True),
    dict(B=1, Hq=2, Hkv=1, N=97, Nk=33, D=64, layout="local(1) - causal", block=16, p=0.8,
         kpm=False),
], ids=["dense-p0.1", "gqa-causal-padding-p0.5", "mqa-anticausal-p0.8"])
def test_dropout_against_golden(backend, case):
    """O, dq, dk, dv against float64 dense_attention with dropout_keep from
    dropout_keep_mask and the library's seed; within 2x the float32 reference + atol."""
    B, Hq, Hkv, N, Nk, D = (case[x] for x in ("B", "Hq", "Hkv", "N", "Nk", "D"))
    p, lay, block = case["p"], case["layout"], case["block"]
    q, k, v = make_qkv(B, Hq, Hkv, N, Nk, D, seed=8)
    kpm = None
    if case["kpm"]:
        kpm = torch.arange(Nk)[None, :] >= torch.tensor([Nk, Nk // 3])[:, None]
    do = torch.randn(B, Hq, N, D, generator=torch.Generator().manual_seed(1))
    res = run(q, k, v, lay, manual_seed=33, do=do, block=block, dropout_p=p,
              key_padding_mask=kpm, backend=backend)

    mask = compile_layout(lay, N, kv_seq_len=Nk, block=block, num_heads=Hq).to_dense()
    keep = full_keep(library_seed(33), p, B, Hq, N, Nk)

    def reference(dtype):
        xs = [x.detach().to(dtype).requires_grad_() for x in (q, k, v)]
        out = dense_attention(*xs, mask, key_padding_mask=kpm, dropout_keep=keep,
                              dropout_p=p)[0]
        return (out.detach(),) + torch.autograd.grad(out, xs, do.to(dtype))

    gold, ref = reference(torch.float64), reference(torch.float32)
    for name, x, g, r in zip(("out", "dq", "dk", "dv"), res, gold, ref):
        assert torch.isfinite(x).all(), name
        err = (x.double() - g).abs().max().item()
        ref_err = (r.double() - g).abs().max().item()
        assert err <= 2 * ref_err + 1e-5, f"{name}: {err:.3e} vs reference {ref_err:.3e}"
    # Sanity: without the keep-mask the golden output is far off (dropout really happened).
    plain = dense_attention(q.double(), k.double(), v.double(), mask, key_padding_mask=kpm)[0]
    assert (plain - gold[0]).abs().max() > 1e-2


@pytest.mark.parametrize("backend", BACKENDS)
def test_dropout_empty_rows(backend):
    q, k, v = make_qkv(1, 2, 2, 40, 40, 16)
    kpm = torch.zeros(1, 40, dtype=torch.bool)
    kpm[0, :16] = True
    out, dq, dk, dv = run(q, k, v, "local(0)", manual_seed=2, block=16, dropout_p=0.4,
                          key_padding_mask=kpm, backend=backend)
    for x in (out, dq, dk, dv):
        assert torch.isfinite(x).all()
    assert (out[:, :, :16] == 0).all() and (dq[:, :, :16] == 0).all()
    assert (dk[:, :, :16] == 0).all() and (dv[:, :, :16] == 0).all()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_dropout_half_backends_agree(backend, dtype):
    """Half inputs with dropout: finite, and close to the float32 run with the same seed."""
    q, k, v = make_qkv(1, 2, 2, 48, 48, 32, dtype=dtype)
    kw = dict(block=16, dropout_p=0.3, backend=backend)
    low = run(q, k, v, "causal", manual_seed=4, **kw)
    high = run(q.float(), k.float(), v.float(), "causal", manual_seed=4, **kw)
    for name, x, y in zip(("out", "dq", "dk", "dv"), low, high):
        assert x.dtype == dtype and torch.isfinite(x).all()
        torch.testing.assert_close(x.float(), y, atol=5e-2, rtol=5e-2, msg=name)
