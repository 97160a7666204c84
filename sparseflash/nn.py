"""``BlockSparseAttention``: multi-head attention over a block-sparse pattern, batch first."""

from __future__ import annotations

import warnings
from typing import Dict, Optional, Tuple

import torch
from einops import rearrange
from torch import nn

from .functional import attention
from .layout import Layout, compile_layout, parse
from .layout.layout import canonical_device, warn_if_compiling
from .reference import MAX_DROPOUT_P


class BlockSparseAttention(nn.Module):
    """Multi-head attention whose score matrix is restricted to a block-sparse pattern.

    Args:
        embed_dim: model width E.
        num_heads: query heads H (E must be divisible by H; head dim E / H in 16..256).
        layout: pattern string, parsed here so that a bad pattern fails at construction.
        block: layout block size (power of two >= 16).
        dropout: attention-probability dropout (inside the kernel), active in training.
        bias: bias on the q/k/v/out projections.
        num_kv_heads: key/value heads for GQA/MQA (default H).
        causal: intersect the pattern with ``causal``.
        seq_len, kv_seq_len: the query (and key, default ``seq_len``) length the module
            will see, when known: its layout is then built now and again whenever the
            module moves to another device (``.to``, ``.cuda``), so that a first call under
            ``torch.compile`` finds it ready and compiles to one graph. Other lengths
            still work; their layouts are built on first use.

    ``forward(query (B, N, E), key=None (B, Nk, E), value=None, *, key_padding_mask=None
    (B, Nk) bool, True = padding) -> (B, N, E)``; self-attention when key/value are omitted.
    Compiled layouts are cached per (N, Nk, device), never saved: the state dict holds the
    weights and, as extra state, the pattern string (``{"layout", "causal", "block"}``), so
    a checkpoint records which pattern its weights were trained with; pickles hold the
    pattern and no tables either.
    """

    def __init__(self, embed_dim: int, num_heads: int, layout: str = "dense", *,
                 block: int = 128, dropout: float = 0.0, bias: bool = True,
                 num_kv_heads: Optional[int] = None, causal: bool = False,
                 seq_len: Optional[int] = None, kv_seq_len: Optional[int] = None):
        super().__init__()
        num_kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        if num_heads % num_kv_heads:
            raise ValueError(f"num_heads={num_heads} is not a multiple of "
                             f"num_kv_heads={num_kv_heads}")
        if not 0.0 <= dropout <= MAX_DROPOUT_P:
            raise ValueError(f"dropout must be in [0, 1 - 2**-16], got {dropout}")
        if not isinstance(layout, str):
            raise TypeError("layout must be a pattern string (e.g. 'local(2) | global(1)')")
        self.pattern = f"({layout}) & causal" if causal else layout
        parse(self.pattern)  # fail now, with the caret, not at the first forward
        self.embed_dim, self.num_heads, self.num_kv_heads = embed_dim, num_heads, num_kv_heads
        self.head_dim = embed_dim // num_heads
        self.block, self.dropout, self.causal = block, dropout, causal
        self.layout_text = layout
        kv_dim = self.head_dim * num_kv_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, kv_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, kv_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self._layouts: Dict[Tuple[int, int, str], Layout] = {}
        self.seq_len, self.kv_seq_len = _declared_lengths(seq_len, kv_seq_len)
        self._build_declared()

    def _build_declared(self) -> None:
        """Build the layout of the declared lengths on the weights' device (not on the
        meta device, where a model is only being described)."""
        if self.seq_len is not None and self.q_proj.weight.device.type != "meta":
            self.layout_for(self.seq_len, self.kv_seq_len)

    def _apply(self, fn, recurse=True):
        # Every device or dtype change (.to, .cuda, .half, to_empty) ends here. The cached
        # layouts of the old device can no longer serve a forward (its inputs follow the
        # weights), so they go, and the declared lengths are built on the new device.
        device = self.q_proj.weight.device
        module = super()._apply(fn, recurse)
        if self.q_proj.weight.device != device:
            self._layouts.clear()
        self._build_declared()
        return module

    def layout_for(self, seq_len: int, kv_seq_len: Optional[int] = None,
                   device=None) -> Layout:
        """The layout this module uses for queries of ``seq_len`` and keys of
        ``kv_seq_len`` (default ``seq_len``) on ``device`` (default: its weights'), compiled
        once and cached.

        Under ``torch.compile``, call it for the lengths the model will see before the
        first compiled call (or run one eager step): a layout first built inside a compiled
        call is built eagerly (the compiler cannot trace that work), which breaks the
        caller's graph there, and the compiled code keeps that split."""
        kv_seq_len = seq_len if kv_seq_len is None else kv_seq_len
        device = canonical_device(self.q_proj.weight.device if device is None else device)
        key = (seq_len, kv_seq_len, str(device))
        if key not in self._layouts:
            warn_if_compiling(f"the layout of {self.pattern!r} for N={seq_len}")
            self._layouts[key] = compile_layout(self.pattern, seq_len, kv_seq_len=kv_seq_len,
                                                block=self.block, num_heads=self.num_heads,
                                                device=device)
        return self._layouts[key]

    def forward(self, query: torch.Tensor, key: Optional[torch.Tensor] = None,
                value: Optional[torch.Tensor] = None, *,
                key_padding_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        if query.dim() != 3 or query.shape[-1] != self.embed_dim:
            raise ValueError(f"query must be (B, N, {self.embed_dim}), got {tuple(query.shape)}")
        key = query if key is None else key
        value = key if value is None else value
        q = rearrange(self.q_proj(query), "b n (h d) -> b h n d", h=self.num_heads)
        k = rearrange(self.k_proj(key), "b n (h d) -> b h n d", h=self.num_kv_heads)
        v = rearrange(self.v_proj(value), "b n (h d) -> b h n d", h=self.num_kv_heads)
        layout = self.layout_for(q.shape[2], k.shape[2], q.device)
        out = attention(q, k, v, layout, dropout_p=self.dropout if self.training else 0.0,
                        key_padding_mask=key_padding_mask)
        return self.out_proj(rearrange(out, "b h n d -> b n (h d)"))

    def extra_repr(self) -> str:
        text = (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
                f"num_kv_heads={self.num_kv_heads}, layout={self.layout_text!r}, "
                f"block={self.block}, dropout={self.dropout}, causal={self.causal}")
        if self.seq_len is not None:
            text += f", seq_len={self.seq_len}"
            if self.kv_seq_len != self.seq_len:
                text += f", kv_seq_len={self.kv_seq_len}"
        return text

    def get_extra_state(self) -> dict:
        return {"layout": self.layout_text, "causal": self.causal, "block": self.block}

    def set_extra_state(self, state: dict) -> None:
        # The weights fit any pattern (fine-tuning dense weights with a sparse pattern is a
        # use), so a different saved pattern is reported, not imposed.
        mine = self.get_extra_state()
        if state != mine:
            warnings.warn(f"loading weights saved with {state} into a BlockSparseAttention "
                          f"with {mine}: the module keeps its own pattern", stacklevel=2)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_layouts"] = {}  # compiled tables are a cache, not state
        return state

    def __setstate__(self, state):
        # Unpickling and copy.deepcopy restore the submodules first, then come here: the
        # declared lengths are built again on the weights' device (modules pickled before
        # lengths could be declared have none).
        super().__setstate__(state)
        self.__dict__.setdefault("seq_len", None)
        self.__dict__.setdefault("kv_seq_len", None)
        self._build_declared()


def _declared_lengths(seq_len: Optional[int], kv_seq_len: Optional[int]
                      ) -> Tuple[Optional[int], Optional[int]]:
    """Checked ``(seq_len, kv_seq_len)`` of :class:`BlockSparseAttention`'s arguments."""
    if seq_len is None:
        if kv_seq_len is not None:
            raise ValueError("kv_seq_len needs seq_len (the query length) too")
        return None, None
    kv_seq_len = seq_len if kv_seq_len is None else kv_seq_len
    for name, value in (("seq_len", seq_len), ("kv_seq_len", kv_seq_len)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    return seq_len, kv_seq_len


def prepare_layouts(model: nn.Module, seq_len: int, kv_seq_len: Optional[int] = None,
                    device=None) -> int:
    """Build the layout of every :class:`BlockSparseAttention` in ``model`` for queries of
    ``seq_len`` and keys of ``kv_seq_len`` (default ``seq_len``), on ``device`` (default:
    each module's weights'), as :meth:`BlockSparseAttention.layout_for` does. Returns how
    many modules it prepared.

    Call it before ``torch.compile(model)`` with the lengths the attention layers will see
    (a classifier that prepends a CLS token sees one more), so that the compiled forward
    is one graph: a layout first built inside a compiled call splits the graph there.
    (Modules built with ``seq_len=`` have that length's layout already.)"""
    modules = [m for m in model.modules() if isinstance(m, BlockSparseAttention)]
    for module in modules:
        module.layout_for(seq_len, kv_seq_len, device)
    return len(modules)
