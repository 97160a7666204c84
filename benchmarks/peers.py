"""The methods the attention benchmark compares, each as ``build(q, k, v, layout) ->
callable`` running the forward (and returning the output tensor).

* ``sparseflash``: this library's Triton kernels.
* ``sdpa-cudnn`` / ``sdpa-flash`` / ``sdpa-efficient``: PyTorch SDPA backends (dense or
  causal only: they cannot skip blocks).
* ``flex``: PyTorch FlexAttention with the identical block mask, compiled.
* ``naive``: materialised masked softmax in PyTorch (small N only).
"""

from __future__ import annotations

from typing import Callable, Optional

import torch
import torch.nn.functional as F

import sparseflash
from sparseflash.layout import Layout


def error_line(exc: BaseException, limit: int = 240) -> str:
    """``"Type: first non-blank line of the message"`` (at most ``limit`` characters of it),
    as the benchmarks record a method that could not run; an empty message gives the type
    alone."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0][:limit] if lines else ''}"


def sparseflash_method(q, k, v, layout: Layout, **kw) -> Callable:
    return lambda: sparseflash.attention(q, k, v, layout, backend="triton")


def sparseflash_kernel_method(q, k, v, layout: Layout, **kw) -> Callable:
    """The forward kernel launched directly (no validation, no autograd): the gap to
    ``sparseflash`` is the Python cost per call."""
    from sparseflash.kernels import launch
    tables = layout.kernel_tables()
    meta = launch.LayoutMeta.of(layout)
    scale = q.shape[-1] ** -0.5
    return lambda: launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)[0]


def sdpa_method(backend_name: str):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
               "efficient": SDPBackend.EFFICIENT_ATTENTION}[backend_name]

    def build(q, k, v, layout: Layout, is_causal: bool = False, **kw) -> Callable:
        def run():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        return run
    return build


def layout_mask_mod(layout: Layout, device: torch.device) -> Callable:
    """FlexAttention's ``mask_mod(b, h, q_idx, kv_idx)`` for the layout's token mask: the
    block's code (full, off, or partial: bounds, causal, anticausal) read from a ``(H, nq,
    nk)`` table on ``device``, then the token test its partial code asks."""
    from sparseflash.layout.layout import CODE_ANTICAUSAL, CODE_BOUNDS, CODE_CAUSAL
    codes = layout.block_codes().to(device).to(torch.int32)
    block, nk_tokens = layout.block, layout.kv_seq_len
    per_head = layout.num_heads > 1

    def mask_mod(b, h, q_idx, kv_idx):
        c = codes[h if per_head else 0, q_idx // block, kv_idx // block]
        return ((c == 3) | ((c == CODE_BOUNDS) & (kv_idx < nk_tokens))
                | ((c == CODE_CAUSAL) & (q_idx >= kv_idx))
                | ((c == CODE_ANTICAUSAL) & (q_idx < kv_idx)))
    return mask_mod


def flex_block_mask(layout: Layout, compiled: Optional[bool] = None):
    """A FlexAttention BlockMask with exactly the layout's blocks: full blocks as full,
    partial blocks evaluated with :func:`layout_mask_mod`.

    Built compiled (``compiled``; by default on CUDA): uncompiled, ``create_block_mask``
    evaluates the mask over every (query, key) pair at once, 32 GiB of int64 indices at
    N = 65,536, which did not fit beside the inputs on an 80 GB H100 (session 58);
    compiled, the evaluation is fused with the per-block reduction (as
    :func:`benchmarks.paper_e6` does for its padding). Its ``_compile`` flag, deprecated
    in torch 2.13 for ``torch.compile(create_block_mask)``, is the form that ran on the
    GPU machine's torch 2.11 (paper_e6 to N = 65,536, session 50)."""
    from torch.nn.attention.flex_attention import create_block_mask
    if compiled is None:
        compiled = torch.device(layout.device).type == "cuda"
    per_head = layout.num_heads > 1
    return create_block_mask(layout_mask_mod(layout, layout.device), B=None,
                             H=layout.num_heads if per_head else None,
                             Q_LEN=layout.seq_len, KV_LEN=layout.kv_seq_len,
                             device=layout.device, BLOCK_SIZE=layout.block, _compile=compiled)


_compiled_flex = None


def flex_method(q, k, v, layout: Layout, **kw) -> Callable:
    global _compiled_flex
    import torch._dynamo
    from torch.nn.attention.flex_attention import flex_attention
    # The backward timing reuses one graph (retain_graph=True), which a compiled
    # backward with donated buffers refuses (seen on torch 2.11): keep them.
    import torch._functorch.config
    torch._functorch.config.donated_buffer = False
    # With the default limit dynamo silently falls back to an unfused path after 8 shapes.
    torch._dynamo.config.cache_size_limit = 1000
    if _compiled_flex is None:
        _compiled_flex = torch.compile(flex_attention, dynamic=False)
    block_mask = flex_block_mask(layout)
    gqa = q.shape[1] != k.shape[1]
    options = None
    try:
        _compiled_flex(q, k, v, block_mask=block_mask, enable_gqa=gqa)
    except Exception as exc:  # noqa: BLE001
        # Seen on torch 2.11 / H200, D=64 with inputs that need grad: Inductor's default
        # tile asks for more shared memory than the GPU has. Retry with a shallower
        # pipeline, and say so: the result is then Flex with that option.
        if "out of resource" not in str(exc):
            raise
        options = {"num_stages": 2}
        print(f"  flex: default config out of shared memory; using kernel_options={options}")
    return lambda: _compiled_flex(q, k, v, block_mask=block_mask, enable_gqa=gqa,
                                  kernel_options=options)


def naive_method(q, k, v, layout: Layout, **kw) -> Callable:
    mask = layout.to_dense()
    group = q.shape[1] // k.shape[1]

    def run():
        kk, vv = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
        s = (q @ kk.transpose(-1, -2)) * q.shape[-1] ** -0.5
        s = s.masked_fill(~mask, float("-inf")).float().softmax(-1).to(q.dtype)
        return s.nan_to_num(0.0) @ vv
    return run


#: The methods that cannot skip blocks: they run only the dense and causal patterns.
DENSE_ONLY = {"sdpa-cudnn", "sdpa-flash"}

METHODS = {
    "sparseflash": sparseflash_method,
    "sparseflash-kernel": sparseflash_kernel_method,
    "flex": flex_method,
    "sdpa-cudnn": sdpa_method("cudnn"),
    "sdpa-flash": sdpa_method("flash"),
    "naive": naive_method,
}
