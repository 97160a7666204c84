"""``sparseflash.attention`` under ``torch.compile`` (eager and aot_eager backends, so no C++
compiler is needed) and under CPU autocast."""

import os

# TRITON_INTERPRET is set by tests/conftest.py on machines without CUDA.

import warnings  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash import compile_layout  # noqa: E402
from sparseflash.reference import dense_attention  # noqa: E402

BACKENDS = ["torch", "triton"]


def make_qkv(B=1, Hq=2, Hkv=1, N=40, Nk=33, D=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(B, Hq, N, D, generator=g), torch.randn(B, Hkv, Nk, D, generator=g),
            torch.randn(B, Hkv, Nk, D, generator=g))


def fwd_bwd(fn, q, k, v, *, manual_seed=0):
    q, k, v = (x.detach().requires_grad_() for x in (q, k, v))
    torch.manual_seed(manual_seed)
    out = fn(q, k, v)
    do = torch.randn(out.shape, generator=torch.Generator().manual_seed(1))
    return (out.detach(),) + torch.autograd.grad(out, (q, k, v), do)


def graph_recorder():
    """-> (backend, graphs): a torch.compile backend that runs each graph it is given as
    traced and keeps it (a ``torch.fx.GraphModule``) in ``graphs``."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    return backend, graphs


def node_targets(gm) -> list:
    return [str(node.target) for node in gm.graph.nodes]


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # dynamo's lru_cache notices
        yield
    torch._dynamo.reset()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("compile_backend", ["eager", "aot_eager"])
def test_compile_matches_eager(backend, compile_backend):
    q, k, v = make_qkv()
    kpm = torch.zeros(1, 33, dtype=torch.bool)
    kpm[0, -4:] = True

    def fn(q, k, v):
        return sparseflash.attention(q, k, v, "causal | global(1)", block=16,
                                     key_padding_mask=kpm, backend=backend)

    eager = fwd_bwd(fn, q, k, v)
    compiled = fwd_bwd(torch.compile(fn, backend=compile_backend), q, k, v)
    for name, a, b in zip(("out", "dq", "dk", "dv"), compiled, eager):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6, msg=name)
    # And eager is right (float64 golden).
    mask = compile_layout("causal | global(1)", 40, kv_seq_len=33, block=16).to_dense()
    gold = dense_attention(q.double(), k.double(), v.double(), mask, key_padding_mask=kpm)[0]
    torch.testing.assert_close(eager[0].double(), gold, atol=1e-5, rtol=1e-5)


def test_compile_fullgraph_with_layout_object():
    """A precompiled Layout, fullgraph (no graph break around the op), and attention is
    one opaque node of the graph."""
    q, k, v = make_qkv(Hkv=2)
    lay = compile_layout("local(1) | global(1)", 40, kv_seq_len=33, block=16)
    recording_backend, graphs = graph_recorder()

    def fn(q, k, v):
        return sparseflash.attention(q, k, v, lay, backend="torch") * 2

    eager = fwd_bwd(fn, q, k, v)
    torch.compile(fn, backend=recording_backend, fullgraph=True)(q, k, v)
    targets = [t for gm in graphs for t in node_targets(gm)]
    assert any("sparseflash.attention_forward" in t for t in targets), targets
    assert not any("einsum" in t or "softmax" in t for t in targets), targets
    torch._dynamo.reset()
    compiled = fwd_bwd(torch.compile(fn, backend="aot_eager", fullgraph=True), q, k, v)
    for name, a, b in zip(("out", "dq", "dk", "dv"), compiled, eager):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6, msg=name)


@pytest.mark.parametrize("make", ["compile_layout", "from_block_mask"])
def test_first_compiled_call_is_one_graph(make):
    """A layout from compile_layout (or any layout after ``prepare()``) has its kernel
    tables built: the very first compiled call traces one graph (fullgraph), with nothing
    of the tables' construction in it. Traced, the construction's data-dependent CPU work
    split the graph into ~20, and its device copies became graph outputs (under
    ``mode="reduce-overhead"``, CUDA-graph memory)."""
    q, k, v = make_qkv(Hkv=2)
    if make == "compile_layout":
        lay = compile_layout("local(1) | global(1) | random(1, seed=3)", 40, kv_seq_len=33,
                             block=16)
    else:
        mask = torch.rand(1, 3, 3, generator=torch.Generator().manual_seed(5)) < 0.6
        lay = sparseflash.Layout.from_block_mask(mask, 40, kv_seq_len=33, block=16).prepare()
    counting_backend, graphs = graph_recorder()

    def fn(q, k, v):
        return sparseflash.attention(q, k, v, lay, backend="torch") * 2

    compiled = fwd_bwd(torch.compile(fn, backend=counting_backend, fullgraph=True), q, k, v)
    assert len(graphs) == 1, [node_targets(gm) for gm in graphs]
    targets = node_targets(graphs[0])
    assert not any("nonzero" in t or "bincount" in t for t in targets), targets
    for name, a, b in zip(("out", "dq", "dk", "dv"), compiled, fwd_bwd(fn, q, k, v)):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6, msg=name)


def test_unprepared_layout_is_built_eagerly_under_compile():
    """A layout that meets its first call inside a compiled function builds its tables
    eagerly there (a graph break, not ~20 traced graphs), and the calls compute what
    eager calls compute."""
    from torch._dynamo.utils import counters
    q, k, v = make_qkv(Hkv=2)
    mask = torch.ones(1, 3, 3, dtype=torch.bool).tril()
    lay = sparseflash.Layout.from_block_mask(mask, 40, kv_seq_len=33, block=16)
    fn = lambda q, k, v: sparseflash.attention(q, k, v, lay, backend="torch")  # noqa: E731
    counters.clear()
    compiled = torch.compile(fn, backend="eager")
    for _ in range(2):
        got = fwd_bwd(compiled, q, k, v)
    assert counters["stats"]["unique_graphs"] <= 3, dict(counters["stats"])
    for name, a, b in zip(("out", "dq", "dk", "dv"), got, fwd_bwd(fn, q, k, v)):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6, msg=name)


@pytest.mark.parametrize("backend", BACKENDS)
def test_compile_with_dropout(backend):
    """The seed comes from the global generator inside the compiled region too:
    the same torch.manual_seed gives what eager gives."""
    q, k, v = make_qkv()

    def fn(q, k, v):
        return sparseflash.attention(q, k, v, "dense", block=16, dropout_p=0.3,
                                     backend=backend)

    eager = fwd_bwd(fn, q, k, v, manual_seed=3)
    compiled = fwd_bwd(torch.compile(fn, backend="aot_eager"), q, k, v, manual_seed=3)
    for name, a, b in zip(("out", "dq", "dk", "dv"), compiled, eager):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6, msg=name)


def test_compile_new_length_same_results():
    """A second sequence length (dynamic shapes may kick in) still matches eager."""
    fn = lambda q, k, v: sparseflash.attention(q, k, v, "causal", block=16,  # noqa: E731
                                               backend="torch")
    compiled = torch.compile(fn, backend="aot_eager")
    for N in (40, 57):
        q, k, v = make_qkv(N=N, Nk=N, Hkv=2, seed=N)
        a, b = fwd_bwd(compiled, q, k, v), fwd_bwd(fn, q, k, v)
        for x, y in zip(a, b):
            torch.testing.assert_close(x, y, atol=1e-6, rtol=1e-6)


# ----------------------------------------------------------------------------- autocast

@pytest.mark.parametrize("backend", BACKENDS)
def test_autocast_cpu_bfloat16(backend):
    q, k, v = (x.requires_grad_() for x in make_qkv(Hkv=2))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = sparseflash.attention(q, k, v, "causal", block=16, backend=backend)
    assert out.dtype == torch.bfloat16
    out.float().sum().backward()
    for x in (q, k, v):
        assert x.grad.dtype == torch.float32 and torch.isfinite(x.grad).all()
    mask = compile_layout("causal", 40, kv_seq_len=33, block=16).to_dense()
    gold = dense_attention(q.double(), k.double(), v.double(), mask)[0]
    torch.testing.assert_close(out.double(), gold, atol=3e-2, rtol=3e-2)


def _autocast_case():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(1, 2, 200, 64, generator=g) for _ in range(3)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_autocast_same_as_bfloat16_inputs(backend):
    """Autocast means: cast the inputs to bfloat16, then the usual bfloat16 computation."""
    q, k, v = _autocast_case()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = sparseflash.attention(q, k, v, "causal", block=32, backend=backend)
    direct = sparseflash.attention(q.bfloat16(), k.bfloat16(), v.bfloat16(), "causal",
                                   block=32, backend=backend)
    torch.testing.assert_close(out, direct, atol=0, rtol=0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_autocast_compiled_matches_eager(backend):
    q, k, v = _autocast_case()

    def fn(q, k, v):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return sparseflash.attention(q, k, v, "causal", block=32, backend=backend)

    eager = fn(q, k, v)
    compiled = torch.compile(fn, backend="aot_eager")(q, k, v)
    assert compiled.dtype == torch.bfloat16
    torch.testing.assert_close(compiled, eager, atol=0, rtol=0)


def test_module_compiled_after_layout_for_is_one_graph():
    """BlockSparseAttention.layout_for (here through nn.prepare_layouts) before the first
    compiled call: the module's whole forward (projections, attention, output projection)
    is one graph."""
    module = sparseflash.BlockSparseAttention(32, 2, "local(1) | global(1)", block=16)
    x = torch.randn(1, 40, 32, generator=torch.Generator().manual_seed(2))
    assert sparseflash.nn.prepare_layouts(torch.nn.Sequential(module), 40) == 1
    counting_backend, graphs = graph_recorder()
    compiled = torch.compile(module, backend=counting_backend, fullgraph=True)
    torch.testing.assert_close(compiled(x), module(x), atol=1e-6, rtol=1e-6)
    assert len(graphs) == 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("padded", [False, True], ids=["no-padding", "padding"])
def test_compiled_outputs_keep_the_strides_the_graph_was_traced_with(backend, padded):
    """q, k, v as a module makes them (a head split of (B, N, H*D): permuted, not
    contiguous), the output merged back (a view when traced), gradients through
    aot_eager: the custom ops' outputs must have the strides their fake implementations
    gave the tracer, or the view of the output (and the gradients' use) fails at run
    time."""
    g = torch.Generator().manual_seed(5)
    x = torch.randn(2, 40, 3, 2, 16, generator=g)  # (B, N, q/k/v, H, D)
    kpm = torch.zeros(2, 40, dtype=torch.bool)
    kpm[1, 31:] = padded

    def fn(x):
        q, k, v = (x[:, :, i].transpose(1, 2) for i in range(3))  # (B, H, N, D) views
        out = sparseflash.attention(q, k, v, "local(1) | global(1)", block=16,
                                    key_padding_mask=kpm if padded else None, backend=backend)
        return out.transpose(1, 2).reshape(2, 40, 32)  # a view where the strides allow

    sparseflash.compile_layout("local(1) | global(1)", 40, block=16, num_heads=2)
    results = []
    for f in (fn, torch.compile(fn, backend="aot_eager", fullgraph=True)):
        xi = x.clone().requires_grad_()
        out = f(xi)
        (grad,) = torch.autograd.grad(out, xi, torch.ones_like(out))
        results.append((out, grad))
    torch.testing.assert_close(results[1], results[0], atol=1e-5, rtol=1e-5)


def test_module_with_declared_length_is_one_graph_from_the_first_call():
    """BlockSparseAttention(seq_len=N) has its layout before any call: compiled, its first
    call is one fullgraph graph and nothing warns."""
    module = sparseflash.BlockSparseAttention(32, 2, "local(1) | global(1)", block=16,
                                              seq_len=40)
    x = torch.randn(1, 40, 32, generator=torch.Generator().manual_seed(2))
    counting_backend, graphs = graph_recorder()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = torch.compile(module, backend=counting_backend, fullgraph=True)(x)
    assert not [w for w in caught if "sparseflash:" in str(w.message)]
    torch.testing.assert_close(compiled, module(x), atol=1e-6, rtol=1e-6)
    assert len(graphs) == 1


@pytest.mark.parametrize("given", ["pattern", "module"])
def test_layout_built_inside_compile_warns(given):
    """A layout first built inside a compiled call says so (the graph splits there for
    good) and says how to avoid it; one built beforehand does not warn."""
    torch._dynamo.reset()
    x = torch.randn(1, 48, 32, generator=torch.Generator().manual_seed(4))
    q, k, v = make_qkv(N=48, Nk=48, Hkv=2)
    module = sparseflash.BlockSparseAttention(32, 2, "local(1) | global(1)", block=16)
    fn = ((lambda: sparseflash.attention(q, k, v, "local(1) | causal", block=16))
          if given == "pattern" else (lambda: module(x)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.compile(fn, backend="eager")()
    messages = [str(w.message) for w in caught if "sparseflash:" in str(w.message)]
    assert len(messages) == 1 and "prepare_layouts" in messages[0], messages
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:  # now built: silent
        warnings.simplefilter("always")
        torch.compile(fn, backend="eager")()
    assert not [w for w in caught if "sparseflash:" in str(w.message)]


@pytest.mark.triton_on_cpu
def test_unprepared_layout_with_padding_warns_under_compile():
    """A padded Triton call reaches the layout's padding keys before its kernel tables:
    an unprepared layout warns from there too."""
    torch._dynamo.reset()
    q, k, v = make_qkv(N=48, Nk=48, Hkv=2)
    kpm = torch.zeros(1, 48, dtype=torch.bool)
    kpm[0, -5:] = True
    lay = sparseflash.Layout.from_block_mask(torch.ones(1, 3, 3, dtype=torch.bool), 48,
                                             block=16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.compile(lambda: sparseflash.attention(q, k, v, lay, key_padding_mask=kpm,
                                                    backend="triton"), backend="eager")()
    assert [w for w in caught if "sparseflash:" in str(w.message)]
    torch._dynamo.reset()
