"""``sparseflash.attention`` against a float64 masked-softmax golden run, on both backends.

Every numerical test goes through :func:`check_attention`: it runs the library (output,
log-sum-exp, dq/dk/dv for a random dO), a float64 golden run of
``reference.dense_attention`` on upcast inputs with the layout's ``to_dense()`` mask, and
the same-dtype PyTorch reference; the library passes when its max-abs error against the
golden run is at most twice the reference's error plus a small atol. It also checks that
nothing is NaN/inf and that query rows with no key give zeros, lse = -inf and zero grads.

The Triton kernels run under ``TRITON_INTERPRET=1`` on CPU, so shapes stay small.
"""

import os

# TRITON_INTERPRET is set by tests/conftest.py on machines without CUDA.

import math  # noqa: E402
import warnings  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash import Layout, compile_layout  # noqa: E402
from sparseflash.reference import dense_attention  # noqa: E402

BACKENDS = ["triton", "torch"]
ATOL = {torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 1e-3}


# ----------------------------------------------------------------------------- helpers
def make_qkv(B, Hq, Hkv, N, Nk, D, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, Hq, N, D, generator=g).to(dtype)
    k = torch.randn(B, Hkv, Nk, D, generator=g).to(dtype)
    v = torch.randn(B, Hkv, Nk, D, generator=g).to(dtype)
    return q, k, v


def dense_mask_of(layout, N, Nk, block, heads):
    """The token-level mask (H, N, Nk) of whatever form ``layout`` takes."""
    if isinstance(layout, Layout):
        return layout.to_dense()
    if isinstance(layout, torch.Tensor):
        return Layout.from_block_mask(layout, N, kv_seq_len=Nk, block=block).to_dense()
    return compile_layout(layout, N, kv_seq_len=Nk, block=block, num_heads=heads).to_dense()


def _leaf(x, dtype=None):
    x = x.detach()
    if dtype is not None:
        x = x.to(dtype)
    return x.requires_grad_()


def _max_err(a, b):
    if a.numel() == 0:
        return 0.0
    return (a.double() - b.double()).abs().max().item()


def check_attention(q, k, v, layout="dense", *, backend, block=128, scale=None,
                    key_padding_mask=None, do=None, grads=True, reference=None, atol=None,
                    check_lse=True):
    """Run ``sparseflash.attention`` and compare O, lse, dq, dk, dv with a float64 golden run.

    ``reference(q, k, v) -> out`` is the same-dtype PyTorch reference whose error sets the
    tolerance (default: ``dense_attention`` in the input dtype). Returns a dict with the
    library's results.
    """
    B, H, N, D = q.shape
    Nk = k.shape[2]
    dtype = q.dtype
    atol = ATOL[dtype] if atol is None else atol
    mask = dense_mask_of(layout, N, Nk, block, H)

    # The library.
    qs, ks, vs = _leaf(q), _leaf(k), _leaf(v)
    out, lse = sparseflash.attention(qs, ks, vs, layout, block=block, scale=scale,
                                     key_padding_mask=key_padding_mask, backend=backend,
                                     return_lse=True)
    assert out.shape == q.shape and out.dtype == dtype
    assert lse.shape == (B, H, N) and lse.dtype == torch.float32
    if do is None:
        do = torch.randn(out.shape, generator=torch.Generator().manual_seed(123)).to(dtype)
    res = {"out": out.detach(), "lse": lse.detach()}
    if grads:
        res["dq"], res["dk"], res["dv"] = torch.autograd.grad(out, (qs, ks, vs), do)
        for name, g, x in (("dq", res["dq"], q), ("dk", res["dk"], k), ("dv", res["dv"], v)):
            assert g.shape == x.shape and g.dtype == dtype, name

    # Golden: float64 on upcast inputs.
    q64, k64, v64 = (_leaf(x, torch.float64) for x in (q, k, v))
    gold_out, gold_lse = dense_attention(q64, k64, v64, mask, scale=scale,
                                         key_padding_mask=key_padding_mask)
    gold = {"out": gold_out.detach()}
    if grads:
        gold["dq"], gold["dk"], gold["dv"] = torch.autograd.grad(
            gold_out, (q64, k64, v64), do.double())

    # The same-dtype PyTorch reference.
    qr, kr, vr = (_leaf(x) for x in (q, k, v))
    if reference is None:
        ref_out = dense_attention(qr, kr, vr, mask, scale=scale,
                                  key_padding_mask=key_padding_mask)[0]
    else:
        ref_out = reference(qr, kr, vr)
    ref = {"out": ref_out.detach()}
    if grads:
        ref["dq"], ref["dk"], ref["dv"] = torch.autograd.grad(ref_out, (qr, kr, vr), do)

    for name in gold:
        assert torch.isfinite(res[name]).all(), f"{name} has NaN/inf"
        err, ref_err = _max_err(res[name], gold[name]), _max_err(ref[name], gold[name])
        assert err <= 2 * ref_err + atol, (
            f"{name}: max abs error {err:.3e} vs float64 golden; the {ref_out.dtype} "
            f"reference has {ref_err:.3e} (allowed {2 * ref_err + atol:.3e})")

    # Rows with no key: zeros, lse = -inf, zero dq. Other rows: lse finite and close.
    allowed = mask[None].expand(B, H, N, Nk)
    if key_padding_mask is not None:
        allowed = allowed & ~key_padding_mask[:, None, None, :]
    empty = ~allowed.any(-1)  # (B, H, N)
    assert torch.equal(torch.isneginf(lse), empty), "lse = -inf exactly on rows with no key"
    assert not torch.isnan(lse).any() and not torch.isposinf(lse).any()
    assert (res["out"][empty] == 0).all()
    if grads:
        assert (res["dq"][empty] == 0).all()
    if check_lse and (~empty).any():
        # The lse is float32 whatever the input dtype (half inputs upcast exactly): compare
        # with the float32 reference on the same upcast inputs.
        ref_lse = dense_attention(q.float(), k.float(), v.float(), mask, scale=scale,
                                  key_padding_mask=key_padding_mask)[1]
        gold_lse = gold_lse.detach()[~empty]
        lse_err = _max_err(lse[~empty], gold_lse)
        ref_lse_err = _max_err(ref_lse[~empty], gold_lse)
        lse_atol = 1e-5 * (1.0 + gold_lse.abs().max().item())
        assert lse_err <= 2 * ref_lse_err + lse_atol, (
            f"lse error {lse_err:.3e}, float32 reference {ref_lse_err:.3e}")
    res["empty"] = empty
    return res


def sdpa(q, k, v, **kw):
    group = q.shape[1] // k.shape[1]
    return F.scaled_dot_product_attention(q, k.repeat_interleave(group, 1),
                                          v.repeat_interleave(group, 1), **kw)


# ----------------------------------------------------------------------------- SDPA
SDPA_SHAPES = [  # (B, Hq, Hkv, N, Nk, D, block)
    (1, 1, 1, 1, 1, 16, 16),
    (2, 2, 2, 17, 17, 40, 16),
    (1, 2, 2, 97, 200, 64, 32),
    (1, 4, 2, 200, 97, 96, 64),
    (1, 2, 1, 128, 128, 128, 128),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", SDPA_SHAPES, ids=lambda s: "B{}H{}/{}N{}Nk{}D{}b{}".format(*s))
def test_dense_matches_sdpa(backend, shape):
    B, Hq, Hkv, N, Nk, D, block = shape
    q, k, v = make_qkv(B, Hq, Hkv, N, Nk, D)
    res = check_attention(q, k, v, "dense", backend=backend, block=block,
                          reference=lambda q, k, v: sdpa(q, k, v))
    torch.testing.assert_close(res["out"], sdpa(q, k, v), atol=1e-5, rtol=1e-4)
    # No layout argument: the default is "dense".
    out = sparseflash.attention(q, k, v, block=block, backend=backend)
    torch.testing.assert_close(out, res["out"], atol=0, rtol=0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", SDPA_SHAPES[1:] + [(1, 2, 2, 200, 200, 16, 32)],
                         ids=lambda s: "B{}H{}/{}N{}Nk{}D{}b{}".format(*s))
def test_causal_matches_sdpa(backend, shape):
    """"causal" is top-left aligned like SDPA's is_causal, also for N != Nk."""
    B, Hq, Hkv, N, Nk, D, block = shape
    q, k, v = make_qkv(B, Hq, Hkv, N, Nk, D, seed=1)
    res = check_attention(q, k, v, "causal", backend=backend, block=block,
                          reference=lambda q, k, v: sdpa(q, k, v, is_causal=True))
    torch.testing.assert_close(res["out"], sdpa(q, k, v, is_causal=True), atol=1e-5, rtol=1e-4)


# ----------------------------------------------------------------------------- golden matrix
# (B, Hq, Hkv, N, Nk, D, layout, block): every N/Nk in {1, 17, 97, 128, 200, 1025}, every D
# in {16, 40, 64, 96, 128, 256}, GQA/MQA, cross-attention, full/partial/anti-causal blocks.
GOLDEN_CASES = [
    (1, 1, 1, 1, 1, 16, "dense", 16),
    (1, 2, 2, 1, 17, 16, "causal", 16),
    (1, 2, 2, 17, 1, 40, "causal", 16),
    (2, 2, 2, 17, 17, 64, "local(0)", 16),
    (1, 2, 2, 17, 17, 16, "local(1) - causal", 16),    # anti-causal diagonal + empty last row
    (1, 2, 2, 97, 97, 40, "local(1) | global(1)", 32),
    (1, 2, 2, 97, 200, 96, "causal | strided(3)", 32),
    (1, 2, 2, 200, 97, 128, "local(1) & causal", 32),
    (2, 2, 2, 128, 128, 64, "strided(2) | causal", 32),
    (1, 1, 1, 128, 200, 256, "local(1)", 64),
    (1, 2, 2, 200, 128, 80, "butterfly", 32),          # D=80: not a power of two
    (1, 4, 2, 97, 128, 64, "causal", 32),              # GQA
    (1, 4, 1, 128, 97, 40, "local(1) | global(1)", 32),  # MQA, cross
    (1, 4, 2, 200, 200, 16, "dense - causal", 64),     # strictly upper: last rows empty
    (1, 1, 1, 1025, 1025, 16, "local(1) | global(1)", 128),
    (1, 1, 1, 17, 1025, 16, "dense", 128),
    (1, 2, 1, 1025, 97, 16, "causal", 64),
]


def _case_id(c):
    B, Hq, Hkv, N, Nk, D, lay, block = c
    return f"B{B}H{Hq}-{Hkv}N{N}Nk{Nk}D{D}b{block}-{lay.replace(' ', '')}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", GOLDEN_CASES, ids=_case_id)
def test_golden(backend, case):
    B, Hq, Hkv, N, Nk, D, lay, block = case
    q, k, v = make_qkv(B, Hq, Hkv, N, Nk, D, seed=N + Nk + D)
    check_attention(q, k, v, lay, backend=backend, block=block)


@pytest.mark.parametrize("backend", BACKENDS)
def test_forward_only_largest(backend):
    """N = Nk = 1025 with a denser pattern, forward only (the interpreter is slow)."""
    q, k, v = make_qkv(1, 2, 1, 1025, 1025, 16, seed=7)
    check_attention(q, k, v, "causal | global(2)", backend=backend, block=128, grads=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("D", [16, 40, 64, 96, 128, 256])
def test_head_dims(backend, D):
    q, k, v = make_qkv(1, 1, 1, 40, 33, D, seed=D)
    check_attention(q, k, v, "causal", backend=backend, block=16)


# ----------------------------------------------------------------------------- key padding
def _trailing_padding(lengths, Nk):
    return torch.arange(Nk)[None, :] >= torch.tensor(lengths)[:, None]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("layout", ["dense", "causal", "local(1) | global(1)"])
def test_key_padding_random(backend, layout):
    q, k, v = make_qkv(2, 2, 2, 50, 97, 40, seed=3)
    g = torch.Generator().manual_seed(5)
    kpm = torch.rand(2, 97, generator=g) < 0.3
    res = check_attention(q, k, v, layout, backend=backend, block=16, key_padding_mask=kpm)
    # Padding keys get exactly zero dk and dv.
    pad = kpm[:, None, :, None].expand_as(res["dk"])
    assert (res["dk"][pad] == 0).all() and (res["dv"][pad] == 0).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_key_padding_trailing(backend):
    """Trailing lengths; in batch 1 key blocks 2.. (block 32) are all padding (skipped)."""
    q, k, v = make_qkv(2, 4, 2, 60, 97, 16, seed=4)
    kpm = _trailing_padding([97, 40], 97)
    res = check_attention(q, k, v, "dense", backend=backend, block=32, key_padding_mask=kpm)
    assert (res["dk"][1, :, 40:] == 0).all() and (res["dv"][1, :, 40:] == 0).all()
    # Same as running batch 1 on its real keys only.
    out1 = sparseflash.attention(q[1:], k[1:, :, :40], v[1:, :, :40], "dense", block=32,
                                 backend=backend)
    torch.testing.assert_close(res["out"][1:], out1, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("block", [128, 256])
def test_key_padding_large_blocks(backend, block):
    """Layout blocks bigger than the kernel tile (sub-tiles), with a padded 128-key run."""
    q, k, v = make_qkv(1, 2, 2, 300, 260, 16, seed=6)
    kpm = torch.rand(1, 260, generator=torch.Generator().manual_seed(6)) < 0.3
    kpm[0, 128:256] = True
    check_attention(q, k, v, "local(1) | causal", backend=backend, block=block,
                    key_padding_mask=kpm)


@pytest.mark.parametrize("backend", BACKENDS)
def test_key_padding_sdpa(backend):
    q, k, v = make_qkv(2, 2, 2, 33, 70, 64, seed=9)
    kpm = _trailing_padding([70, 33], 70)
    out = sparseflash.attention(q, k, v, "dense", block=32, key_padding_mask=kpm,
                                backend=backend)
    expected = sdpa(q, k, v, attn_mask=~kpm[:, None, None, :])
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_key_padding_whole_batch_and_empty_rows(backend):
    """Batch 1 is all padding: every row empty; with local(0) batch 0 rows of the first
    query block lose all their keys too."""
    q, k, v = make_qkv(2, 2, 1, 64, 64, 16, seed=11)
    kpm = torch.zeros(2, 64, dtype=torch.bool)
    kpm[0, :16] = True
    kpm[1] = True
    res = check_attention(q, k, v, "local(0)", backend=backend, block=16, key_padding_mask=kpm)
    assert res["empty"][1].all() and res["empty"][0, :, :16].all()
    assert not res["empty"][0, :, 16:].any()
    assert (res["out"][1] == 0).all() and (res["dq"][1] == 0).all()
    assert (res["dk"][1] == 0).all() and (res["dv"][1] == 0).all()


# ----------------------------------------------------------------------------- empty rows
@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_rows_block_mask(backend):
    """A query-block row with no block (shared layout) and one empty only for head 1."""
    N, Nk, block = 70, 50, 16
    nq, nk = 5, 4
    mask = torch.rand(2, nq, nk, generator=torch.Generator().manual_seed(0)) < 0.6
    mask[:, :, 0] = True
    mask[:, 2] = False          # block row 2 empty in both heads
    mask[1, 4] = False          # last (ragged) block row empty in head 1 only
    q, k, v = make_qkv(1, 2, 2, N, Nk, 16, seed=12)
    res = check_attention(q, k, v, mask, backend=backend, block=block)
    assert res["empty"][0, :, 32:48].all() and res["empty"][0, 1, 64:].all()
    assert not res["empty"][0, 0, 64:].any()


@pytest.mark.parametrize("backend", BACKENDS)
def test_all_empty_layout(backend):
    q, k, v = make_qkv(1, 2, 2, 20, 20, 16)
    res = check_attention(q, k, v, "none", backend=backend, block=16)
    assert res["empty"].all()
    for name in ("out", "dq", "dk", "dv"):
        assert (res[name] == 0).all(), name


# ----------------------------------------------------------------------------- per-head
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("Hkv", [4, 2, 1])
def test_per_head_string(backend, Hkv):
    q, k, v = make_qkv(1, 4, Hkv, 97, 80, 16, seed=Hkv)
    check_attention(q, k, v, "per_head(local(0), causal, global(1), dense - causal)",
                    backend=backend, block=16)


@pytest.mark.parametrize("backend", BACKENDS)
def test_per_head_layout_and_mask(backend):
    N = Nk = 64
    lay = compile_layout("per_head(local(0), strided(2) | causal)", N, block=16, num_heads=4)
    assert lay.num_heads == 4
    q, k, v = make_qkv(1, 4, 2, N, Nk, 40, seed=13)
    a = check_attention(q, k, v, lay, backend=backend, block=16)
    b = check_attention(q, k, v, lay.mask, backend=backend, block=16)  # (4, nq, nk) bool
    # The block mask drops the causal element mask of the diagonal: only heads 0 and 2
    # (local(0), block-level) agree.
    torch.testing.assert_close(a["out"][:, 0::2], b["out"][:, 0::2], atol=1e-6, rtol=1e-5)


# ----------------------------------------------------------------------------- split rows
# A global row among short ones is split across programs whose partial softmax results the
# launcher merges (sparseflash.layout.schedule). 20 key blocks against a mean of ~3 split.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", [
    dict(Hq=2, Hkv=2, N=320, Nk=320, layout="local(0) | global(1)", kpm=False),
    dict(Hq=4, Hkv=2, N=301, Nk=290, layout="local(0) | global(2)", kpm=True),
    dict(Hq=2, Hkv=1, N=330, Nk=330,
         layout="per_head(local(0) | global(1), local(1) | global(2))", kpm=True),
    dict(Hq=2, Hkv=2, N=330, Nk=330,
         layout="per_head(local(0) | global(1), local(1) | global(2))", kpm=False),
    dict(Hq=2, Hkv=2, N=320, Nk=310, layout="local(0) | global(1)", kpm="trailing"),
], ids=["global", "gqa-ragged-padding", "mqa-per-head", "per-head", "trailing-padding"])
def test_split_rows(backend, case):
    """Split rows in the forward and dQ; split columns (the global key blocks, listed by
    every row) in dK/dV, except per-head layouts with grouped heads, which are unscheduled."""
    N, Nk = case["N"], case["Nk"]
    lay = compile_layout(case["layout"], N, kv_seq_len=Nk, block=16, num_heads=case["Hq"])
    assert lay.schedule_sizes("kv")[2] >= 1, "the case must actually split a row"
    assert lay.schedule_sizes("q")[2] >= 1, "the case must actually split a column"
    q, k, v = make_qkv(2, case["Hq"], case["Hkv"], N, Nk, 32, seed=29)
    kpm = None
    if case["kpm"] == "trailing":
        # The walks stop at the last real key: whole chunks of the split row fall away.
        kpm = _trailing_padding([Nk - 5, 100], Nk)
    elif case["kpm"]:
        kpm = torch.rand(2, Nk, generator=torch.Generator().manual_seed(5)) < 0.3
        kpm[1, : Nk // 2] = True  # whole padding blocks, inside the split row too
    check_attention(q, k, v, lay, backend=backend, block=16, key_padding_mask=kpm)


# ----------------------------------------------------------------------------- layout forms
@pytest.mark.parametrize("backend", BACKENDS)
def test_layout_forms_agree(backend):
    """A pattern string, the compiled Layout, its (1, nq, nk) and (nq, nk) bool masks."""
    N, Nk, block = 90, 70, 16
    pattern = "local(1) | global(1) | strided(3)"
    lay = compile_layout(pattern, N, kv_seq_len=Nk, block=block)
    q, k, v = make_qkv(1, 2, 2, N, Nk, 16, seed=14)
    results = [check_attention(q, k, v, form, backend=backend, block=block)
               for form in (pattern, lay, lay.mask, lay.mask[0])]
    for r in results[1:]:
        for name in ("out", "lse", "dq", "dk", "dv"):
            torch.testing.assert_close(r[name], results[0][name], atol=1e-6, rtol=1e-5)
    # A Layout carries its block: block= may be left out.
    out = sparseflash.attention(q, k, v, lay, backend=backend)
    torch.testing.assert_close(out, results[0]["out"], atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pattern_object(backend):
    q, k, v = make_qkv(1, 2, 2, 40, 40, 16)
    out = sparseflash.attention(q, k, v, sparseflash.parse("causal"), block=16, backend=backend)
    torch.testing.assert_close(out, sdpa(q, k, v, is_causal=True), atol=1e-5, rtol=1e-4)


# ----------------------------------------------------------------------------- strides
@pytest.mark.parametrize("backend", BACKENDS)
def test_non_contiguous_inputs(backend):
    """(B, N, H, D) tensors transposed to (B, H, N, D), and a stride-2 head dim."""
    B, H, N, Nk, D = 2, 2, 50, 40, 40
    g = torch.Generator().manual_seed(15)
    q = torch.randn(B, N, H, D, generator=g).transpose(1, 2)
    k = torch.randn(B, Nk, H, D, generator=g).transpose(1, 2)
    v = torch.randn(B, H, Nk, 2 * D, generator=g)[..., ::2]
    assert not (q.is_contiguous() or k.is_contiguous() or v.is_contiguous())
    do = torch.randn(B, N, H, D, generator=g).transpose(1, 2)
    res = check_attention(q, k, v, "causal | global(1)", backend=backend, block=16, do=do)
    contiguous = check_attention(q.contiguous(), k.contiguous(), v.contiguous(),
                                 "causal | global(1)", backend=backend, block=16,
                                 do=do.contiguous())
    for name in ("out", "lse", "dq", "dk", "dv"):
        torch.testing.assert_close(res[name], contiguous[name], atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_expanded_grad_output(backend):
    """out.sum().backward() gives a dO with all-zero strides."""
    q, k, v = make_qkv(1, 2, 2, 30, 30, 16)
    q.requires_grad_()
    sparseflash.attention(q, k, v, "causal", block=16, backend=backend).sum().backward()
    q64 = q.detach().double().requires_grad_()
    mask = compile_layout("causal", 30, block=16).to_dense()
    dense_attention(q64, k.double(), v.double(), mask)[0].sum().backward()
    torch.testing.assert_close(q.grad.double(), q64.grad, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_expanded_inputs(backend):
    """k/v broadcast over the batch (stride 0): gradients sum into the shared tensor."""
    g = torch.Generator().manual_seed(20)
    q = torch.randn(2, 2, 30, 16, generator=g)
    base = torch.randn(1, 1, 40, 16, generator=g)
    kv = base.expand(2, 1, 40, 16)
    assert kv.stride(0) == 0
    res = check_attention(q, kv, kv, "causal", backend=backend, block=16)
    dense = check_attention(q, kv.contiguous(), kv.contiguous(), "causal", backend=backend,
                            block=16)
    for name in ("out", "dq", "dk", "dv"):
        torch.testing.assert_close(res[name], dense[name], atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_only_some_inputs_require_grad(backend):
    q, k, v = make_qkv(1, 2, 1, 30, 30, 16, seed=21)
    q.requires_grad_()
    out = sparseflash.attention(q, k, v, "causal", block=16, backend=backend)
    (dq,) = torch.autograd.grad(out.sum(), (q,))
    q64 = q.detach().double().requires_grad_()
    mask = compile_layout("causal", 30, block=16).to_dense()
    (dq64,) = torch.autograd.grad(dense_attention(q64, k.double(), v.double(), mask)[0].sum(),
                                  (q64,))
    torch.testing.assert_close(dq.double(), dq64, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_deterministic(backend):
    """No atomics: two runs give bitwise identical outputs and gradients."""
    q, k, v = make_qkv(1, 2, 1, 70, 70, 16, seed=22)
    a = check_attention(q, k, v, "causal | global(1)", backend=backend, block=16)
    b = check_attention(q, k, v, "causal | global(1)", backend=backend, block=16)
    for name in ("out", "lse", "dq", "dk", "dv"):
        assert torch.equal(a[name], b[name]), name


# ----------------------------------------------------------------------------- dtypes
HALF_CASES = [  # (B, Hq, Hkv, N, Nk, D, layout, block)
    (1, 2, 2, 97, 97, 64, "causal", 32),
    (2, 2, 1, 50, 80, 40, "local(1) | global(1)", 16),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("case", HALF_CASES, ids=_case_id)
def test_half_precision(backend, dtype, case):
    B, Hq, Hkv, N, Nk, D, lay, block = case
    q, k, v = make_qkv(B, Hq, Hkv, N, Nk, D, dtype=dtype, seed=16)
    kpm = _trailing_padding([Nk - 5] * B, Nk) if B == 2 else None
    check_attention(q, k, v, lay, backend=backend, block=block, key_padding_mask=kpm)


# ----------------------------------------------------------------------------- large logits
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_large_logits(backend, dtype):
    """scale=100: logits in the thousands; no overflow, no NaN, exact max subtraction.

    The atol grows with the logits: any float32 implementation rounds a logit of ~3000 to
    ~2e-4, which the exponent turns into a relative error of P. (The strict 2x rule at
    this scale is ``test_large_logits_strict``.)"""
    q, k, v = make_qkv(1, 2, 2, 70, 70, 64, dtype=dtype, seed=17)
    atol = ATOL[dtype] * 100 if dtype == torch.float32 else None
    with warnings.catch_warnings():
        # The interpreter's numpy warns on exp2 overflow in masked-out (discarded) entries.
        warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
        res = check_attention(q, k, v, "causal | global(1)", backend=backend, block=32,
                              scale=100.0, atol=atol)
    assert res["lse"][~res["empty"]].abs().max() > 1000  # the logits really are large


@pytest.mark.parametrize("backend", BACKENDS)
def test_large_logits_strict(backend):
    q, k, v = make_qkv(1, 2, 2, 70, 70, 64, seed=17)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
        check_attention(q, k, v, "causal | global(1)", backend=backend, block=32, scale=100.0)


# ----------------------------------------------------------------------------- lse
@pytest.mark.parametrize("backend", BACKENDS)
def test_return_lse_values(backend):
    B, H, N, Nk, D = 2, 2, 45, 37, 16
    q, k, v = make_qkv(B, H, H, N, Nk, D, seed=18)
    kpm = _trailing_padding([37, 20], Nk)
    scale = 0.3
    out, lse = sparseflash.attention(q, k, v, "local(1) - causal", block=16, scale=scale,
                                     key_padding_mask=kpm, backend=backend, return_lse=True)
    assert lse.dtype == torch.float32 and lse.shape == (B, H, N) and not lse.requires_grad
    mask = compile_layout("local(1) - causal", N, kv_seq_len=Nk, block=16).to_dense()
    s = torch.einsum("bhnd,bhmd->bhnm", q.double(), k.double()) * scale
    s = s.masked_fill(~(mask[None] & ~kpm[:, None, None, :]), float("-inf"))
    expected = torch.logsumexp(s, -1)
    empty = torch.isneginf(expected)
    assert empty.any() and (~empty).any()
    assert torch.equal(torch.isneginf(lse), empty)
    torch.testing.assert_close(lse[~empty].double(), expected[~empty], atol=1e-5, rtol=1e-6)
    out2 = sparseflash.attention(q, k, v, "local(1) - causal", block=16, scale=scale,
                                 key_padding_mask=kpm, backend=backend)
    assert torch.equal(out, out2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_scale(backend):
    q, k, v = make_qkv(1, 1, 1, 20, 20, 40)
    a = sparseflash.attention(q, k, v, "dense", block=16, backend=backend)
    b = sparseflash.attention(q, k, v, "dense", block=16, backend=backend,
                              scale=1 / math.sqrt(40))
    torch.testing.assert_close(a, b, atol=0, rtol=0)


@pytest.mark.triton_on_cpu
def test_backends_agree():
    q, k, v = make_qkv(1, 4, 2, 97, 60, 40, seed=19)
    kpm = torch.rand(1, 60, generator=torch.Generator().manual_seed(1)) < 0.2
    outs = [sparseflash.attention(q, k, v, "per_head(local(1), causal)", block=32,
                                  key_padding_mask=kpm, backend=b, return_lse=True)
            for b in BACKENDS]
    torch.testing.assert_close(outs[0][0], outs[1][0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(outs[0][1], outs[1][1], atol=1e-5, rtol=1e-5)
    auto = sparseflash.attention(q, k, v, "per_head(local(1), causal)", block=32,
                                 key_padding_mask=kpm, backend="auto")
    assert torch.equal(auto, outs[1][0])  # auto on CPU is the torch backend


# ----------------------------------------------------------------------------- memory
class _MaxNumel:
    """Records the largest tensor any aten op produces while its mode is active."""

    def __init__(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        tracker = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                for t in torch.utils._pytree.tree_leaves(out):
                    if isinstance(t, torch.Tensor):
                        tracker.max_numel = max(tracker.max_numel, t.numel())
                        tracker.ops += 1
                return out

        self.max_numel, self.ops, self.Mode = 0, 0, Mode

    def active(self) -> bool:
        from torch.utils._python_dispatch import _get_current_dispatch_mode_stack
        return any(isinstance(m, self.Mode) for m in _get_current_dispatch_mode_stack())


@pytest.mark.parametrize("path", ["eager", "custom_op"])
def test_torch_backend_no_n_by_n_tensor(monkeypatch, path):
    """N=4096, block 128, local(1): the torch backend never creates an N x N tensor, in
    the forward or the backward. A custom op (the torch.compile path) hides its inner aten
    ops from an outer dispatch mode, so block_forward/block_backward enter the mode
    themselves when it is not active there."""
    import sparseflash.reference as reference

    N, D = 4096, 16
    tracker = _MaxNumel()
    calls = []

    def tracked(fn):
        def wrapper(*args, **kwargs):
            calls.append((fn.__name__, tracker.active()))
            if tracker.active():
                return fn(*args, **kwargs)
            with tracker.Mode():
                return fn(*args, **kwargs)
        return wrapper

    if path == "custom_op":  # the op torch.compile sees, called eagerly
        import sparseflash.functional as functional
        monkeypatch.setattr(functional, "_run_eager", functional._run_op)
    monkeypatch.setattr(reference, "block_forward", tracked(reference.block_forward))
    monkeypatch.setattr(reference, "block_backward", tracked(reference.block_backward))
    q, k, v = (x.requires_grad_() for x in make_qkv(1, 1, 1, N, N, D))
    with tracker.Mode():
        out = sparseflash.attention(q, k, v, "local(1)", block=128, backend="torch")
        out.backward(torch.ones_like(out))
    assert [name for name, _ in calls] == ["block_forward", "block_backward"]
    # The custom op hides its inner ops from the outer mode; the eager path does not.
    assert [active for _, active in calls] == [path == "eager"] * 2
    assert tracker.ops > 100  # the inner ops were seen
    assert tracker.max_numel < N * N / 4, tracker.max_numel
    # Sanity: the tracker does see an N x N tensor when one is made.
    with tracker.Mode():
        torch.zeros(N, N)
    assert tracker.max_numel == N * N


def test_length_class_is_capped_and_monotone():
    """Autotune classes of the mean row length: 0, 1, 2-3, 4-7, 8-15, 16+. Capped, so a
    longer dense sequence never re-tunes past 16 blocks per row."""
    from sparseflash.kernels.launch import length_class
    classes = [length_class(n) for n in range(0, 40)]
    assert classes[:9] == [0, 1, 2, 2, 3, 3, 3, 3, 4]
    assert classes == sorted(classes)
    assert length_class(15) == 4 and length_class(16) == length_class(10**6) == 5


def test_layout_meta_is_the_layouts_kernel_meta_field_by_field():
    """attention() passes Layout.kernel_meta() as a list and the launcher rebuilds a
    LayoutMeta from it: the tuple must fill every field, in order."""
    from dataclasses import fields

    from sparseflash.kernels.launch import LayoutMeta
    lay = sparseflash.compile_layout("local(1) | global(1)", 2048, block=64)
    meta = LayoutMeta.of(lay)
    assert len(fields(LayoutMeta)) == len(lay.kernel_meta())
    assert (meta.block, meta.num_kv_blocks, meta.kv_split_rows, meta.q_programs,
            meta.col_blocks) == (64, 32, lay.schedule_sizes("kv")[2],
                                 lay.schedule_sizes("q")[0], lay.mean_blocks("q"))


@pytest.mark.triton_on_cpu
def test_padding_tables_are_reused_for_the_same_mask_only():
    """One mask through several layers builds its tables once; an in-place edit or another
    mask builds them again (a stale table would silently attend to the wrong keys)."""
    from sparseflash import functional
    lay = compile_layout("local(1)", 64, block=16)
    kpm = _trailing_padding([64, 20], 64)
    first = functional._padding_tables(kpm, lay, 2, 64, kpm.device, "triton")
    assert functional._padding_tables(kpm, lay, 2, 64, kpm.device, "triton") is first
    kpm[1, 10:] = True
    edited = functional._padding_tables(kpm, lay, 2, 64, kpm.device, "triton")
    assert edited is not first and edited[1][1, 0] == 1  # kv_end: one block of 16 keys
    other = kpm.clone()
    assert functional._padding_tables(other, lay, 2, 64, kpm.device, "triton") is not edited
    q, k, v = make_qkv(2, 2, 2, 64, 64, 16, seed=1)
    for mask in (kpm, _trailing_padding([64, 40], 64)):  # same shape, different padding
        check_attention(q, k, v, lay, backend="triton", block=16, key_padding_mask=mask)
