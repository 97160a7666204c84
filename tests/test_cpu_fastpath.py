"""The torch backend's CPU shortcuts through ATen's fused flash attention for the CPU: for
a layout that masks nothing (``reference.cpu_dense_*``), and inside the block loop for each
query-block row that needs no element mask (``reference._fused_rows``). Each is taken
exactly when it may be, and computes what the block loop computes, checked against the
block loop run in float64.

The shortcuts are spied on through the two private ops they call (module attributes of
``sparseflash.reference``), so a test sees which path each call took: the whole sequence
at once (the dense shortcut) or one query block's rows and the keys it reads (per row).
"""

import warnings

import pytest
import torch

import sparseflash
from sparseflash import Layout, compile_layout, functional, reference

needs_ops = pytest.mark.skipif(reference._CPU_FLASH_FORWARD is None
                               or reference._CPU_FLASH_BACKWARD is None,
                               reason="this torch has no ATen CPU flash attention ops")


def make_qkv(B, Hq, Hkv, N, Nk, D, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, Hq, N, D, generator=g).to(dtype)
    k = torch.randn(B, Hkv, Nk, D, generator=g).to(dtype)
    v = torch.randn(B, Hkv, Nk, D, generator=g).to(dtype)
    do = torch.randn(B, Hq, N, D, generator=g).to(dtype)
    return q, k, v, do


class _Calls(dict):
    """{"forward": n, "backward": n}: the calls of the two private ops; ``log`` lists
    (op, queries, keys) per call, the lengths of the q and k it was given."""

    def __init__(self):
        super().__init__(forward=0, backward=0)
        self.log = []


@pytest.fixture
def calls(monkeypatch):
    """Spies on the two private ops, see :class:`_Calls`."""
    counts = _Calls()

    def spy(name, op):
        if op is None:  # a torch without the op: leave it missing
            return None
        first = 0 if name == "forward" else 1  # backward(grad_out, q, k, v, ...)

        def wrapper(*args, **kwargs):
            counts[name] += 1
            counts.log.append((name, args[first].shape[2], args[first + 1].shape[2]))
            return op(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(reference, "_CPU_FLASH_FORWARD",
                        spy("forward", reference._CPU_FLASH_FORWARD))
    monkeypatch.setattr(reference, "_CPU_FLASH_BACKWARD",
                        spy("backward", reference._CPU_FLASH_BACKWARD))
    return counts


def library(q, k, v, do, layout, **kw):
    """(out, lse, dq, dk, dv) of sparseflash.attention with the torch backend."""
    q, k, v = (x.detach().requires_grad_() for x in (q, k, v))
    out, lse = sparseflash.attention(q, k, v, layout, backend="torch", return_lse=True, **kw)
    return (out.detach(), lse) + torch.autograd.grad(out, (q, k, v), do)


def block_loop_float64(q, k, v, do, layout: Layout, scale):
    """The materialising block loop in float64: (out, lse, dq, dk, dv)."""
    q, k, v, do = (x.double() for x in (q, k, v, do))
    out, lse = reference.block_forward(q, k, v, layout, scale)
    return (out, lse) + reference.block_backward(do, q, k, v, out, lse, layout, scale)


def assert_matches(res, gold, rel):
    """Max abs error of each result at most ``rel * (1 + max |gold|)``."""
    for name, a, b in zip(("out", "lse", "dq", "dk", "dv"), res, gold):
        assert a.shape == b.shape, name
        err = (a.double() - b.double()).abs().max().item()
        allowed = rel * (1.0 + b.abs().max().item())
        assert err <= allowed, f"{name}: max abs error {err:.3e}, allowed {allowed:.3e}"


# ----------------------------------------------------------------------------- taken, right
CASES = [  # (B, Hq, Hkv, N, Nk, D, layout, block, scale)
    (2, 3, 3, 97, 130, 40, "dense", 128, None),       # ragged key block: bounds only
    (2, 4, 2, 97, 130, 40, "dense", 32, 0.3),         # GQA, non-default scale
    (1, 4, 1, 130, 97, 40, "dense", 64, 0.7),         # MQA, N > Nk
    (2, 2, 2, 97, 130, 40, "local(4)", 32, None),     # a window that reaches every block
    (1, 2, 2, 97, 130, 40, "per_head(dense, dense)", 32, None),
    (1, 2, 2, 1, 1, 16, "dense", 16, None),
]


@needs_ops
@pytest.mark.parametrize("case", CASES,
                         ids=[f"{c[6]}-{c[3]}x{c[4]}-h{c[1]}/{c[2]}" for c in CASES])
def test_fast_path_taken_and_matches_float64_block_loop(calls, case):
    B, Hq, Hkv, N, Nk, D, pattern, block, scale = case
    q, k, v, do = make_qkv(B, Hq, Hkv, N, Nk, D)
    layout = compile_layout(pattern, N, kv_seq_len=Nk, block=block, num_heads=Hq)
    res = library(q, k, v, do, layout, scale=scale)
    assert calls == {"forward": 1, "backward": 1}
    out, lse, dq, dk, dv = res
    assert out.dtype == dq.dtype == dk.dtype == dv.dtype == torch.float32
    assert lse.dtype == torch.float32 and lse.shape == (B, Hq, N)
    assert all(x.is_contiguous() for x in (out, lse, dq, dk, dv))  # as the block loop's
    gold = block_loop_float64(q, k, v, do, layout, D ** -0.5 if scale is None else scale)
    assert_matches(res, gold, rel=1e-5)


@needs_ops
def test_fast_path_for_a_bool_block_mask_of_all_ones(calls):
    q, k, v, do = make_qkv(2, 2, 2, 97, 130, 40)
    mask = torch.ones(2, 4, 5, dtype=torch.bool)
    res = library(q, k, v, do, mask, block=32)
    assert calls == {"forward": 1, "backward": 1}
    layout = Layout.from_block_mask(mask, 97, kv_seq_len=130, block=32)
    assert_matches(res, block_loop_float64(q, k, v, do, layout, 40 ** -0.5), rel=1e-5)


@needs_ops
@pytest.mark.parametrize("pattern", ["dense", "causal | global(1)"])  # whole layout / row 0
@pytest.mark.parametrize("dtype,rel", [(torch.bfloat16, 2e-2), (torch.float16, 3e-3)])
def test_fast_path_half_inputs(calls, dtype, rel, pattern):
    """Half inputs: outputs and gradients in the input dtype, lse float32; about as close
    to the float64 loop as the half-precision rounding allows."""
    q, k, v, do = make_qkv(2, 4, 2, 97, 130, 40, dtype=dtype)
    layout = compile_layout(pattern, 97, kv_seq_len=130, block=32)
    res = library(q, k, v, do, layout, scale=0.3)
    assert calls == {"forward": 1, "backward": 1}
    assert all(x.dtype == dtype for i, x in enumerate(res) if i != 1)
    assert res[1].dtype == torch.float32
    gold = block_loop_float64(q, k, v, do, layout, 0.3)
    assert_matches(res, gold, rel=rel)
    lse_err = (res[1].double() - gold[1]).abs().max().item()
    assert lse_err <= 1e-5 * (1.0 + gold[1].abs().max().item())


@needs_ops
def test_fast_path_strided_inputs(calls):
    """(B, N, H, D) memory seen as (B, H, N, D), and a head dim that is not contiguous
    (which the ATen kernel cannot read: it must get a copy), give the contiguous result."""
    q, k, v, do = make_qkv(2, 4, 2, 97, 130, 40)
    want = library(q, k, v, do, "dense", block=32, scale=0.3)
    heads_inside = [x.transpose(1, 2).contiguous().transpose(1, 2) for x in (q, k, v, do)]
    d_strided = [x.transpose(-1, -2).contiguous().transpose(-1, -2) for x in (q, k, v, do)]
    for inputs in (heads_inside, d_strided):
        got = library(*inputs, "dense", block=32, scale=0.3)
        for a, b in zip(got, want):
            torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6)
    assert calls == {"forward": 3, "backward": 3}


@needs_ops
def test_fast_path_inside_the_custom_op_and_under_compile(calls, monkeypatch):
    """The torch.compile path (the custom op, whose fake outputs are contiguous) takes the
    shortcut too and gives the eager results."""
    q, k, v, do = make_qkv(1, 4, 2, 97, 130, 40)
    fn = lambda q, k, v: sparseflash.attention(q, k, v, "dense", block=32,  # noqa: E731
                                               backend="torch")

    def fwd_bwd(f):
        qs, ks, vs = (x.detach().requires_grad_() for x in (q, k, v))
        out = f(qs, ks, vs)
        return (out.detach(),) + torch.autograd.grad(out, (qs, ks, vs), do)

    eager = fwd_bwd(fn)
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            compiled = fwd_bwd(torch.compile(fn, backend="aot_eager"))
    finally:
        torch._dynamo.reset()
    monkeypatch.setattr(functional, "_run_eager", functional._run_op)
    custom_op = fwd_bwd(fn)
    for a, b, c in zip(eager, compiled, custom_op):
        torch.testing.assert_close(b, a, atol=1e-6, rtol=1e-6)
        torch.testing.assert_close(c, a, atol=1e-6, rtol=1e-6)
    assert calls == {"forward": 3, "backward": 3}


# ----------------------------------------------------------------------------- not taken
def _trailing_padding(B, Nk):
    kpm = torch.zeros(B, Nk, dtype=torch.bool)
    kpm[0, -7:] = True
    return kpm


NO_KERNEL = {  # name: attention() keywords with which neither shortcut may run
    "dropout": dict(dropout_p=0.1),
    "padding": dict(key_padding_mask=_trailing_padding(2, 130)),
    # Padding that pads nothing would be safe, but a mask is not inspected per call.
    "all-false padding": dict(key_padding_mask=torch.zeros(2, 130, dtype=torch.bool)),
}


@pytest.mark.parametrize("pattern", ["dense", "local(1) | global(1)"])
@pytest.mark.parametrize("name", list(NO_KERNEL))
def test_block_loop_for_every_row_with_dropout_or_padding(calls, name, pattern):
    q, k, v, do = make_qkv(2, 2, 2, 97, 130, 40)
    torch.manual_seed(0)
    library(q, k, v, do, pattern, block=32, **NO_KERNEL[name])
    assert calls == {"forward": 0, "backward": 0}


@pytest.mark.parametrize("pattern", ["causal", "local(1)", "per_head(dense, local(0))",
                                     "dense - causal"])
def test_no_dense_shortcut_when_something_is_masked(calls, pattern):
    """A layout that masks something: no call over the whole sequence (97 queries), only
    (some of) its query-block rows of 32 through the per-row path."""
    q, k, v, do = make_qkv(2, 2, 2, 97, 130, 40)
    library(q, k, v, do, pattern, block=32)
    assert all(queries <= 32 for _, queries, _ in calls.log), calls.log


# ----------------------------------------------------------------------------- per row
# reference._fused_rows for N = 97, Nk = 130 (key blocks 0-4, block 4 ragged: 2 of its 32
# keys exist), block 32, two heads: the keys ATen's kernel reads per query-block row, None
# where the row takes the materialising loop.
FUSED_ROWS = {
    "local(1) | global(1)": [130, 96, 128, 98],  # every row; 0 and 3 end in the ragged block
    "butterfly": [98, 96, 96, 96],
    "local(1)": [64, 96, 96, 66],
    "causal": [None] * 4,                        # each row holds a causal diagonal block
    "causal | global(1)": [130, None, None, None],  # the global row: no diagonal mask
    "dense - causal": [None] * 4,                # an anti-causal block in every row
    "per_head(dense, local(0))": [None] * 4,     # the heads list different blocks
    "per_head(local(1) | global(1), local(1))": [None, 96, None, None],  # same in row 1
}


@pytest.mark.parametrize("pattern", list(FUSED_ROWS))
def test_rows_that_qualify_for_the_fused_kernel(pattern):
    layout = compile_layout(pattern, 97, kv_seq_len=130, block=32, num_heads=2)
    assert reference._fused_rows(layout) == FUSED_ROWS[pattern]
    assert reference._fused_rows(layout) is reference._fused_rows(layout)  # cached


def test_a_ragged_block_inside_a_row_takes_the_loop():
    """The ragged last key block listed before another block (its keys past Nk cannot be
    cut off the end of the gathered keys): that row takes the loop, and is right."""
    N, Nk, block, nq, nk = 97, 130, 32, 4, 5
    full = torch.tensor([nk - 1] + [i * nk + j for i in range(1, nq) for j in range(nk)])
    layout = Layout(full_keys=full, partial_keys=torch.tensor([0]),
                    partial_codes=torch.tensor([reference.CODE_BOUNDS], dtype=torch.int8),
                    num_heads=1, seq_len=N, kv_seq_len=Nk, block=block)
    assert reference._row_lists(layout)[0][0].tolist() == [[nk - 1, 0]]
    assert reference._fused_rows(layout) == [None, 130, 130, 130]
    q, k, v, do = make_qkv(2, 2, 2, N, Nk, 24)
    out, lse = reference.block_forward(q, k, v, layout, 0.3)
    res = (out, lse) + reference.block_backward(do, q, k, v, out, lse, layout, 0.3)
    assert_matches(res, block_loop_float64(q, k, v, do, layout, 0.3), rel=1e-5)


PER_ROW_CASES = [  # (B, Hq, Hkv, N, Nk, D, layout, block, scale)
    (2, 2, 2, 97, 130, 40, "local(1) | global(1)", 32, None),
    (2, 4, 2, 97, 130, 40, "butterfly", 32, 0.3),                  # GQA, scale
    (2, 2, 2, 97, 130, 40, "causal", 32, None),                    # no row qualifies
    (1, 4, 1, 97, 130, 40, "causal | global(1)", 32, 0.7),         # MQA, one row of four
    (2, 2, 2, 97, 130, 40, "per_head(local(1) | global(1), local(1))", 32, None),
    (2, 2, 2, 128, 128, 24, "local(1) | global(1)", 16, None),    # no ragged key block
]


@needs_ops
@pytest.mark.parametrize("case", PER_ROW_CASES,
                         ids=[f"{c[6]}-{c[3]}x{c[4]}-h{c[1]}/{c[2]}" for c in PER_ROW_CASES])
def test_per_row_kernel_taken_and_matches_float64_block_loop(calls, case):
    """Each qualifying row, and only those, through ATen's kernel in the forward and the
    backward, reading its own keys (ragged ones cut off); the results, with the other rows
    from the loop, as the float64 loop's."""
    B, Hq, Hkv, N, Nk, D, pattern, block, scale = case
    q, k, v, do = make_qkv(B, Hq, Hkv, N, Nk, D)
    layout = compile_layout(pattern, N, kv_seq_len=Nk, block=block, num_heads=Hq)
    res = library(q, k, v, do, layout, scale=scale)
    fused = reference._fused_rows(layout)
    if (N, Nk, block) == (97, 130, 32):
        assert fused == FUSED_ROWS[pattern]
    rows = [(min(block, N - i * block), keys) for i, keys in enumerate(fused) if keys]
    assert calls.log == [("forward",) + r for r in rows] + [("backward",) + r for r in rows]
    assert all(x.is_contiguous() for x in res)
    gold = block_loop_float64(q, k, v, do, layout, D ** -0.5 if scale is None else scale)
    assert_matches(res, gold, rel=1e-5)


@needs_ops
@pytest.mark.parametrize("fused_in", ["forward", "backward"])
def test_per_row_kernel_and_loop_take_each_others_lse(calls, monkeypatch, fused_in):
    """The loop's lse and the kernel's are the same (natural log, float32): a forward by
    one and a backward by the other give the float64 loop's results."""
    q, k, v, do = make_qkv(2, 2, 2, 97, 130, 40)
    layout = compile_layout("local(1) | global(1)", 97, kv_seq_len=130, block=32)

    def run(fn, *args, fused):
        with monkeypatch.context() as m:
            if not fused:  # without the op, every row takes the loop
                m.setattr(reference, "_CPU_FLASH_FORWARD", None)
            return fn(*args, layout, 0.3)
    out, lse = run(reference.block_forward, q, k, v, fused=fused_in == "forward")
    grads = run(reference.block_backward, do, q, k, v, out, lse,
                fused=fused_in == "backward")
    assert calls == {"forward": 4 * (fused_in == "forward"),
                     "backward": 4 * (fused_in == "backward")}
    assert_matches((out, lse) + grads, block_loop_float64(q, k, v, do, layout, 0.3),
                   rel=1e-5)


def test_block_loop_for_every_row_in_float64(calls):
    q, k, v, do = make_qkv(1, 2, 2, 97, 130, 40, dtype=torch.float64)
    layout = compile_layout("local(1) | global(1)", 97, kv_seq_len=130, block=32)
    out, lse = reference.block_forward(q, k, v, layout, 0.3)
    reference.block_backward(do, q, k, v, out, lse, layout, 0.3)
    assert calls == {"forward": 0, "backward": 0}


def test_block_loop_for_float64():
    """float64 stays on the exact block loop (attention() itself takes no float64: the
    dispatch is called as the custom op would call it)."""
    q, k, v, do = make_qkv(1, 2, 2, 97, 130, 40, dtype=torch.float64)
    layout = compile_layout("dense", 97, kv_seq_len=130, block=32)
    assert not reference.cpu_dense_applies(q, layout)
    assert reference.cpu_dense_applies(q.float(), layout) == (
        reference._CPU_FLASH_FORWARD is not None and reference._CPU_FLASH_BACKWARD is not None)
    args = (list(layout.kernel_tables()), list(layout.kernel_meta()), 0.3, None, None,
            0, 0.0, "torch")
    out, lse = functional._forward_impl(q, k, v, *args)
    assert out.dtype == torch.float64  # the block loop computes in float64 and keeps it
    want = reference.block_forward(q, k, v, layout, 0.3)
    assert torch.equal(out, want[0]) and torch.equal(lse, want[1])
    grads = functional._backward_impl(do, q, k, v, out, lse, *args)
    for a, b in zip(grads, reference.block_backward(do, q, k, v, out, lse, layout, 0.3)):
        assert torch.equal(a, b)


def test_block_loop_when_the_private_ops_are_missing(monkeypatch):
    """Another torch without the ATen ops: the block loop, same results."""
    q, k, v, do = make_qkv(2, 4, 2, 97, 130, 40)
    fast = library(q, k, v, do, "dense", block=32, scale=0.3)
    monkeypatch.setattr(reference, "_CPU_FLASH_FORWARD", None)
    layout = compile_layout("dense", 97, kv_seq_len=130, block=32)
    assert not reference.cpu_dense_applies(q, layout)
    loop = library(q, k, v, do, "dense", block=32, scale=0.3)
    for a, b in zip(fast, loop):
        torch.testing.assert_close(a, b, atol=5e-5, rtol=1e-5)


# ----------------------------------------------------------------------------- gathers
@pytest.mark.parametrize("pattern", ["local(1) | global(1)", "per_head(local(1), global(1))",
                                     "causal", "dense"])
def test_block_loop_gathers_views_and_copies_alike(pattern):
    """A row that is one run of blocks in every head is read as a slice of K/V, the others
    through index_select: both are what indexing every (head, block) pair gives."""
    N, Nk, block, H = 97, 130, 16, 2
    layout = compile_layout(pattern, N, kv_seq_len=Nk, block=block, num_heads=H)
    k = torch.randn(2, H, Nk, 24)
    blocks = reference._Blocks(k, H, block, layout.num_kv_blocks)
    padded = torch.nn.functional.pad(k, (0, 0, 0, layout.num_kv_blocks * block - Nk))
    by_pair = padded.view(2, H, layout.num_kv_blocks, block, 24)
    runs = 0
    for i, (idx, code, run) in enumerate(reference._row_lists(layout)):
        row = reference._RowContext(i, idx, code, run, block, layout, H, None, k.device)
        got = blocks.gather(row)
        heads = torch.arange(H)[:, None]
        want = by_pair[:, heads, row.idx].reshape(2, H, -1, 24)
        assert torch.equal(got, want), i
        shares = got.untyped_storage().data_ptr() == blocks.blocks.untyped_storage().data_ptr()
        assert shares == (run is not None), i  # a run is a view, the rest a copy
        runs += run is not None
    if pattern in ("dense", "local(1) | global(1)"):
        assert runs > 0


@needs_ops
def test_per_row_kernel_at_large_logits(calls, monkeypatch):
    """scale=100 (logits ~3000): the per-row kernel is as accurate as the float32 loop (q
    is scaled before the kernel, which is given scale 1; its own scaling rounds q.k first
    and made dV's error 10x the loop's)."""
    q, k, v, do = make_qkv(1, 2, 2, 70, 70, 64, seed=17)
    layout = compile_layout("causal | global(1)", 70, block=32)
    fused = library(q, k, v, do, layout, scale=100.0)
    assert calls == {"forward": 1, "backward": 1}  # row 0 of 3
    gold = block_loop_float64(q, k, v, do, layout, 100.0)
    monkeypatch.setattr(reference, "_CPU_FLASH_FORWARD", None)  # every row by the loop
    loop = library(q, k, v, do, layout, scale=100.0)
    for name, a, b, g in zip(("out", "lse", "dq", "dk", "dv"), fused, loop, gold):
        err, loop_err = ((x.double() - g).abs().max().item() for x in (a, b))
        assert err <= 1.5 * loop_err + 1e-6, f"{name}: {err:.2e} vs the loop's {loop_err:.2e}"


def test_dense_kernel_at_large_logits(calls, monkeypatch):
    """The dense shortcut at scale=100: as accurate as the float32 loop (q pre-scaled, as
    for the per-row kernel above)."""
    q, k, v, do = make_qkv(1, 2, 2, 70, 70, 64, seed=17)
    layout = compile_layout("dense", 70, block=32)
    fast = library(q, k, v, do, layout, scale=100.0)
    assert calls == {"forward": 1, "backward": 1}
    gold = block_loop_float64(q, k, v, do, layout, 100.0)
    monkeypatch.setattr(reference, "_CPU_FLASH_FORWARD", None)  # the loop, row by row
    loop = library(q, k, v, do, layout, scale=100.0)
    for name, a, b, g in zip(("out", "lse", "dq", "dk", "dv"), fast, loop, gold):
        err, loop_err = ((x.double() - g).abs().max().item() for x in (a, b))
        assert err <= 1.5 * loop_err + 1e-6, f"{name}: {err:.2e} vs the loop's {loop_err:.2e}"
