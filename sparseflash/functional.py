"""``sparseflash.attention``: validation, layout resolution, backend dispatch, autograd.

Layers, from the bottom: the kernel launchers (``kernels.launch``) and the torch backend
(``reference.block_forward/backward``, or ``reference.cpu_dense_forward/backward`` where a
CPU layout masks nothing); two ``torch.library`` custom ops that hide either
behind one opaque call (so ``torch.compile`` treats attention as a single node) and carry
the autograd formula; and the public :func:`attention` with its checks.
"""

from __future__ import annotations

import contextlib
import functools
import math
import weakref
from typing import List, Optional, Tuple, Union

import torch

from .layout import Layout, LayoutError, compile_layout
from .layout.ast import Pattern
from .layout.layout import warn_if_compiling
from .reference import MAX_DROPOUT_P

BACKENDS = ("auto", "triton", "torch")
DEFAULT_BLOCK = 128  # layout block for pattern strings and block masks
_LN2 = math.log(2.0)
_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


# ----------------------------------------------------------------------------- custom ops
def _layout_meta(meta: List[int]):
    return _layout_meta_of(tuple(meta))


@functools.lru_cache(maxsize=256)
def _layout_meta_of(meta: Tuple[int, ...]):
    # Built on every call otherwise: a frozen dataclass's __init__ is a measurable share of
    # a short call's host time (benchmarks/overhead.py).
    from .kernels.launch import LayoutMeta
    return LayoutMeta(*meta)


class _TableLayout(Layout):
    """A Layout rebuilt from kernel tables inside a custom op (the op receives tensors and
    ints only). The torch backend reads its rows from these tables."""

    def __init__(self, tables, meta, seq_len, kv_seq_len):
        block, heads, nq, nk = meta[:4]
        self._origin = list(tables)  # keeps the tensors (and so the cache key's pointers) alive
        self._given = [t.cpu() for t in tables]
        self.num_heads, self.block = heads, block
        self.seq_len, self.kv_seq_len = seq_len, kv_seq_len
        self.num_q_blocks, self.num_kv_blocks = nq, nk
        self.device = torch.device("cpu")
        self.pattern = None

    def to(self, device):
        return self

    def kernel_tables(self):
        return tuple(self._given)


_ROW_CACHE: dict = {}


def _torch_layout(tables, meta, N, Nk):
    # Rebuilding the per-row lists costs a Python loop over rows: cache them per table set.
    key = (tuple(t.data_ptr() for t in tables), tuple(meta), N, Nk)
    layout = _ROW_CACHE.get(key)
    if layout is None:
        if len(_ROW_CACHE) > 64:
            _ROW_CACHE.clear()
        layout = _ROW_CACHE[key] = _TableLayout(tables, meta, N, Nk)
    return layout


def _use_triton(backend: str) -> bool:
    return backend == "triton"


@functools.lru_cache(maxsize=None)
def _launch():
    """The kernel launchers, imported on first use (importing them imports Triton)."""
    from .kernels import launch
    return launch


def _forward_impl(q, k, v, tables, meta, scale, key_padding, kv_limits, seed, dropout_p,
                  backend):
    """``seed``: with dropout, the (1,) int64 Philox seed on q's device (the Triton kernels
    read it there, so a CUDA graph replays with each step's new seed); otherwise unused."""
    if _use_triton(backend):
        return _launch().forward(q, k, v, tables, _layout_meta(meta), scale, key_padding,
                                 kv_limits, seed, dropout_p)
    from .reference import block_forward, cpu_dense_applies, cpu_dense_forward
    layout = _torch_layout(tables, meta, q.shape[2], k.shape[2])
    padding = key_padding.bool() if key_padding is not None else None
    if cpu_dense_applies(q, layout, padding, dropout_p):
        # Nothing masked on the CPU: ATen's fused kernel, same (out, natural-log lse).
        return cpu_dense_forward(q, k, v, scale)
    return block_forward(q, k, v, layout, scale, padding, _seed_value(seed, dropout_p),
                         dropout_p)


def _backward_impl(do, q, k, v, o, lse, tables, meta, scale, key_padding, kv_limits, seed,
                   dropout_p, backend):
    if _use_triton(backend):
        return _launch().backward(do, q, k, v, o, lse, tables, _layout_meta(meta), scale,
                                  key_padding, kv_limits, seed, dropout_p)
    from .reference import block_backward, cpu_dense_applies, cpu_dense_backward
    layout = _torch_layout(tables, meta, q.shape[2], k.shape[2])
    padding = key_padding.bool() if key_padding is not None else None
    # The forward made the same decision from the same arguments (either backward would
    # accept either forward's lse: both are the natural-log float32 (B, H, N)).
    if cpu_dense_applies(q, layout, padding, dropout_p):
        return cpu_dense_backward(do, q, k, v, o, lse, scale)
    return block_backward(do, q, k, v, o, lse, layout, scale, padding,
                          _seed_value(seed, dropout_p), dropout_p)


class _Attention(torch.autograd.Function):
    """Eager autograd path: the same implementations as the custom ops without the
    dispatcher's per-call cost, which is a large share of a short sparse kernel's time."""

    @staticmethod
    def forward(ctx, q, k, v, rest):
        """``rest``: (tables, meta, scale, key_padding, kv_limits, seed (a (1,) int64 tensor
        on q's device, or None without dropout), dropout_p, backend), in one argument:
        ``apply`` inspects each argument it is given."""
        o, lse = _forward_impl(q, k, v, *rest)
        ctx.mark_non_differentiable(lse)
        # The lse gets no gradient: without this, autograd would allocate and zero-fill one
        # (an extra kernel launch) for every backward.
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.rest = rest
        return o, lse

    @staticmethod
    def backward(ctx, do, dlse):
        if do is None:  # only the (non-differentiable) lse reached the loss
            return None, None, None, None
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv = _backward_impl(do.contiguous() if do.stride(-1) != 1 else do, q, k, v, o,
                                    lse, *ctx.rest)
        return dq, dk, dv, None


def _seed_value(seed: Optional[torch.Tensor], dropout_p: float) -> int:
    """The dropout seed as an int, for the torch backend: read only with dropout (reading
    a CUDA tensor waits for the GPU; the Triton kernels read it on the device)."""
    return int(seed.item()) if dropout_p > 0 else 0


def _strided_like(t: torch.Tensor, template: torch.Tensor) -> torch.Tensor:
    """``t`` with the strides of ``torch.empty_like(template)``, which the custom ops'
    fake implementations promise: a compiled graph views their outputs by those strides
    (e.g. ``b h n d -> b n (h d)`` of a permuted q). The Triton kernels write such
    tensors already; the torch backend's loops return contiguous ones. ``t`` is dense (every
    implementation allocates its outputs whole), so strides equal to the template's are
    the fake's too: the first test skips making a meta tensor (~3 us) on every call."""
    if (t.stride() == template.stride()
            or t.stride() == torch.empty_like(template, device="meta").stride()):
        return t
    return torch.empty_like(template).copy_(t)


@torch.library.custom_op("sparseflash::attention_forward", mutates_args=())
def _forward_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, tables: List[torch.Tensor],
                meta: List[int], scale: float, key_padding: Optional[torch.Tensor],
                kv_limits: Optional[torch.Tensor], seed: torch.Tensor, dropout_p: float,
                backend: str) -> Tuple[torch.Tensor, torch.Tensor]:
    o, lse = _forward_impl(q, k, v, tables, meta, scale, key_padding, kv_limits, seed,
                           dropout_p, backend)
    return _strided_like(o, q), lse.contiguous()


@_forward_op.register_fake
def _(q, k, v, tables, meta, scale, key_padding, kv_limits, seed, dropout_p, backend):
    B, H, N, _ = q.shape
    return torch.empty_like(q), q.new_empty((B, H, N), dtype=torch.float32)


@torch.library.custom_op("sparseflash::attention_backward", mutates_args=())
def _backward_op(do: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                 o: torch.Tensor, lse: torch.Tensor, tables: List[torch.Tensor],
                 meta: List[int], scale: float, key_padding: Optional[torch.Tensor],
                 kv_limits: Optional[torch.Tensor], seed: torch.Tensor, dropout_p: float,
                 backend: str) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    dq, dk, dv = _backward_impl(do, q, k, v, o, lse, tables, meta, scale, key_padding,
                                kv_limits, seed, dropout_p, backend)
    return _strided_like(dq, q), _strided_like(dk, k), _strided_like(dv, v)


@_backward_op.register_fake
def _(do, q, k, v, o, lse, tables, meta, scale, key_padding, kv_limits, seed, dropout_p,
      backend):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _setup_context(ctx, inputs, output):
    q, k, v, tables, meta, scale, key_padding, kv_limits, seed, dropout_p, backend = inputs
    o, lse = output
    ctx.mark_non_differentiable(lse)
    # Without dropout the seed is a placeholder the backward makes again: saved, it would be
    # an output of the compiled forward that aliases its input, which CUDA graphs refuse.
    seeds = (seed,) if dropout_p > 0 else ()
    ctx.save_for_backward(q, k, v, o, lse, *seeds, *tables)
    ctx.key_padding, ctx.kv_limits = key_padding, kv_limits
    ctx.meta, ctx.scale, ctx.dropout_p, ctx.backend = meta, scale, dropout_p, backend


def _backward(ctx, do, dlse):
    q, k, v, o, lse, *rest = ctx.saved_tensors
    seed, tables = (rest[0], rest[1:]) if ctx.dropout_p > 0 else (_placeholder_seed(q), rest)
    # The log-sum-exp is returned for inspection; gradients through it are not supported.
    dq, dk, dv = _backward_op(do.contiguous() if do.stride(-1) != 1 else do, q, k, v, o, lse,
                              tables, ctx.meta, ctx.scale, ctx.key_padding, ctx.kv_limits,
                              seed, ctx.dropout_p, ctx.backend)
    no_grad_tables = [None] * len(tables)
    return dq, dk, dv, no_grad_tables, None, None, None, None, None, None, None


_forward_op.register_autograd(_backward, setup_context=_setup_context)


# ----------------------------------------------------------------------------- public API
def _placeholder_seed(q: torch.Tensor) -> torch.Tensor:
    """The custom ops' seed without dropout, never read. Made in the traced graph on q's
    device: a CPU tensor among a graph's inputs makes torch.compile's CUDA graphs
    (``mode="reduce-overhead"``) skip it, and a tensor kept between calls would be a graph
    constant (one made while tracing, a CUDA graph's output that the next replay
    overwrites)."""
    return torch.zeros(1, dtype=torch.int64, device=q.device)


def _draw_seed(device: torch.device) -> torch.Tensor:
    """A dropout seed (1,) int64 drawn on ``device`` from torch's generator there
    (torch.manual_seed makes it reproducible). On a GPU the draw is a kernel: a CUDA graph
    captures it and draws anew on each replay, and nothing waits for the GPU."""
    return torch.randint(0, 2**62, (1,), dtype=torch.int64, device=device)


def _run_op(q, k, v, lay: Layout, scale, kpm, kv_limits, dropout_p: float, backend):
    """attention() under torch.compile: the custom op, one opaque graph node. Its schema
    takes lists, and the seed as a tensor on q's device (:func:`_draw_seed`); without
    dropout a placeholder, never read (:func:`_placeholder_seed`)."""
    seed = _draw_seed(q.device) if dropout_p > 0 else _placeholder_seed(q)
    return _forward_op(q, k, v, list(lay.kernel_tables()), list(lay.kernel_meta()), scale,
                       kpm, kv_limits, seed, dropout_p, backend)


def _run_eager(q, k, v, lay: Layout, scale, kpm, kv_limits, dropout_p: float, backend):
    """attention() in eager mode: the autograd.Function, which runs the same code as the
    custom op with less per-call overhead, given the layout's cached tuples as they are."""
    seed = _draw_seed(q.device) if dropout_p > 0 else None
    return _Attention.apply(q, k, v, (lay.kernel_tables(), lay.kernel_meta(), scale, kpm,
                                      kv_limits, seed, dropout_p, backend))


def _check_tensors(q, k, v):
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 4:
            raise ValueError(f"{name} must have shape (B, H, N, D), got {tuple(t.shape)}")
        if t.dtype not in _DTYPES:
            raise TypeError(f"{name} has dtype {t.dtype}; supported: float16, bfloat16, float32")
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k, v must share a dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if not (q.device == k.device == v.device):
        raise ValueError(f"q, k, v must be on one device, got {q.device}, {k.device}, {v.device}")
    B, H, N, D = q.shape
    if k.shape != v.shape:
        raise ValueError(f"k and v must have the same shape, got {tuple(k.shape)} and "
                         f"{tuple(v.shape)}")
    if k.shape[0] != B:
        raise ValueError(f"batch sizes differ: q has {B}, k/v have {k.shape[0]}")
    if k.shape[3] != D:
        raise ValueError(f"head dims differ: q has D={D}, k/v have D={k.shape[3]} "
                         "(different value head dims are not supported)")
    if H % k.shape[1] != 0:
        raise ValueError(f"q has {H} heads, k/v have {k.shape[1]}: the number of query heads "
                         "must be a multiple of the number of key/value heads (GQA/MQA)")
    if not 16 <= D <= 256:
        raise ValueError(f"head dim D={D} is outside the supported range 16..256")
    if N < 1 or k.shape[2] < 1:
        raise ValueError(f"sequence lengths must be positive, got N={N}, Nk={k.shape[2]}")


#: Pattern strings resolved by attention(): (text, N, Nk, block, heads, device) -> Layout.
#: compile_layout keeps compiled layouts too, but finding one there (parse cache, device
#: canonicalisation, checks) costs ~10 us of every call; a model calls with a few keys.
_RESOLVED: dict = {}
_MAX_RESOLVED = 64


def _resolve_layout(layout, N: int, Nk: int, block: Optional[int], heads: int,
                    device) -> Layout:
    if isinstance(layout, str):
        key = (layout, N, Nk, block, heads, device)
        found = _RESOLVED.get(key)
        if found is None:
            warn_if_compiling(f"the layout of {layout!r} for N={N}")
            found = _resolve_uncached(layout, N, Nk, block, heads, device)
            if len(_RESOLVED) >= _MAX_RESOLVED:
                _RESOLVED.clear()
            _RESOLVED[key] = found
        return found
    return _resolve_uncached(layout, N, Nk, block, heads, device)


def _resolve_uncached(layout, N: int, Nk: int, block: Optional[int], heads: int,
                      device) -> Layout:
    if isinstance(layout, Layout):
        if block is not None and layout.block != block:
            raise LayoutError(f"block={block} was passed but the layout was compiled with "
                              f"block={layout.block}: leave block out (a Layout carries its "
                              "own), or compile the layout again with this block")
        layout.check_compatible(N, Nk, layout.block, heads)
        return layout.to(device)
    block = DEFAULT_BLOCK if block is None else block
    if isinstance(layout, (str, Pattern)):
        return compile_layout(layout, N, kv_seq_len=Nk, block=block, num_heads=heads,
                              device=device)
    if isinstance(layout, torch.Tensor):
        if layout.dtype != torch.bool:
            raise LayoutError(f"a block-mask layout must be a bool tensor, got {layout.dtype}")
        mask = layout if layout.dim() == 3 else layout[None]
        if mask.shape[0] not in (1, heads):
            raise LayoutError(f"block mask has {mask.shape[0]} heads; expected 1 or {heads}")
        return Layout.from_block_mask(mask, N, kv_seq_len=Nk, block=block, device=device)
    raise TypeError("layout must be a pattern string, a Layout or a bool block mask, got "
                    f"{type(layout).__name__}")


def _pick_backend(backend: str, device: torch.device) -> str:
    from .kernels import triton_available
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "auto":
        return "triton" if device.type == "cuda" else "torch"
    if backend == "triton":
        ok, why = triton_available(device)
        if not ok:
            raise RuntimeError(f"backend='triton' cannot run here: {why}. Use backend='torch' "
                               "(any device) or 'auto'.")
    return backend


#: The last padding tables built: (weak reference to the mask, its version, layout, backend,
#: tables). A model passes one mask to every layer; this builds the tables once per batch.
_LAST_PADDING: Optional[tuple] = None


def _padding_tables(key_padding_mask, lay: Layout, B, Nk, device, backend):
    """-> (int8 mask (B, Nk), 1 = padding; for Triton, the int32 walk limits of
    Layout.padding_limits)."""
    global _LAST_PADDING
    if key_padding_mask is None:
        return None, None
    if not isinstance(key_padding_mask, torch.Tensor) or key_padding_mask.dtype != torch.bool:
        raise TypeError("key_padding_mask must be a bool tensor (True = padding)")
    if tuple(key_padding_mask.shape) != (B, Nk):
        raise ValueError(f"key_padding_mask must have shape (B, Nk) = ({B}, {Nk}), got "
                         f"{tuple(key_padding_mask.shape)}")
    if key_padding_mask.device != device:
        raise ValueError(f"key_padding_mask is on {key_padding_mask.device}, q on {device}")
    # A compiled graph computes the tables in the graph, on the device, every call: the
    # reuse below reads the mask's version counter, which dynamo cannot guard on.
    compiling = torch.compiler.is_compiling()
    last = _LAST_PADDING
    # The same tensor object, unmodified since (in-place writes bump _version): reuse.
    if (not compiling and last is not None and last[0]() is key_padding_mask
            and last[1] == key_padding_mask._version and last[2] is lay and last[3] == backend):
        return last[4]
    limits = lay.padding_limits(key_padding_mask) if _use_triton(backend) else None
    tables = key_padding_mask.to(torch.int8).contiguous(), limits
    if not compiling:
        _LAST_PADDING = (weakref.ref(key_padding_mask), key_padding_mask._version, lay,
                         backend, tables)
    return tables


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
              layout: Union[str, Pattern, Layout, torch.Tensor] = "dense", *,
              block: Optional[int] = None, scale: Optional[float] = None, dropout_p: float = 0.0,
              key_padding_mask: Optional[torch.Tensor] = None, backend: str = "auto",
              return_lse: bool = False):
    """Exact block-sparse attention: ``softmax(q k^T * scale + mask) v`` over the blocks the
    layout keeps, computed tile by tile without an N x N matrix.

    Args:
        q: ``(B, Hq, N, D)``.
        k, v: ``(B, Hkv, Nk, D)`` with ``Hq`` a multiple of ``Hkv`` (GQA, MQA).
        layout: a pattern string (``"local(2) | global(1)"``, compiled for
            ``(N, Nk, block, Hq)`` and cached), a :class:`Layout`, or a bool block mask
            ``(H or 1, ceil(N/block), ceil(Nk/block))``.
        block: layout block size in tokens (power of two >= 16) for strings and masks;
            default 128. A :class:`Layout` carries its own block: passing a different one
            is an error.
        scale: score scale, default ``1/sqrt(D)``.
        dropout_p: dropout on the attention probabilities, applied inside the kernel; the
            keep-mask is regenerated in the backward from a seed drawn from torch's
            generator on the inputs' device (``torch.manual_seed`` makes it reproducible).
            The kernels read the seed on the GPU, so a call captured in a CUDA graph
            (``torch.cuda.graph``, ``torch.compile(mode="reduce-overhead")``) draws a new
            mask on each replay. Each score keeps with
            probability ``1 - p`` to within 2^-16 (16-bit draws), so ``p`` may be at most
            ``1 - 2**-16``.
        key_padding_mask: bool ``(B, Nk)``, True = padding key, ignored. The Triton
            kernels (and, on H100/H200 without dropout, the Gluon ones) skip the key
            blocks after each sequence's last real key, so trailing padding costs nothing;
            padding elsewhere is masked and still computed.
        backend: ``"triton"`` (CUDA, or CPU under ``TRITON_INTERPRET=1``), ``"torch"`` (pure
            PyTorch, any device), or ``"auto"`` (triton on CUDA, torch otherwise). An
            explicit backend never falls back.
        return_lse: also return the natural log-sum-exp ``(B, Hq, N)`` float32 (no
            gradient flows through it).

    Returns:
        ``(B, Hq, N, D)`` in q's dtype (and the lse). A query row with no key left gets
        zeros, lse ``-inf``, and zero gradients.
    """
    _check_tensors(q, k, v)
    B, H, N, D = q.shape
    Nk = k.shape[2]
    if block is not None and (isinstance(block, bool) or not isinstance(block, int)
                              or block < 16 or block & (block - 1)):
        raise ValueError(f"block must be a power of two >= 16, got {block!r}")
    if not isinstance(dropout_p, (int, float)) or not 0.0 <= dropout_p <= MAX_DROPOUT_P:
        raise ValueError(f"dropout_p must be in [0, 1 - 2**-16] (the keep test draws 16-bit "
                         f"numbers), got {dropout_p!r}")
    backend = _pick_backend(backend, q.device)
    lay = _resolve_layout(layout, N, Nk, block, H, q.device)
    scale = 1.0 / math.sqrt(D) if scale is None else float(scale)

    autocast = torch.is_autocast_enabled(q.device.type)
    if autocast:
        dtype = torch.get_autocast_dtype(q.device.type)
        q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    kpm, kv_limits = _padding_tables(key_padding_mask, lay, B, Nk, q.device, backend)
    # The inputs already have the autocast dtype; autocast must not also lower the torch
    # backend's float32 accumulation, and eager and compiled calls must compute the same.
    # (Entering torch.autocast costs host time: only when autocast is on.)
    run = _run_op if torch.compiler.is_compiling() else _run_eager
    with (torch.autocast(q.device.type, enabled=False) if autocast
          else contextlib.nullcontext()):
        out, lse = run(q, k, v, lay, scale, kpm, kv_limits, float(dropout_p), backend)
    if not return_lse:
        return out
    # The Triton kernels keep the base-2 lse their exp2 loop produces (see kernels.forward).
    return out, (lse * _LN2 if backend == "triton" else lse)
