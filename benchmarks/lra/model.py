"""Transformer-encoder classifier for the LRA-style tasks, on ``sparseflash.BlockSparseAttention``.

The model (pre-LayerNorm encoder, GELU feed-forward, dropout) reads integer token
sequences ``(B, N)``:

* ListOps: token ids 0-15, 0 = padding (:mod:`benchmarks.lra.listops`);
* Pathfinder: pixel intensities 0-255 in raster order
  (:func:`benchmarks.lra.pathfinder.pathfinder_tokens`); 0 is black, a real token, so these
  sequences have *no* padding id;
* text: UTF-8 byte + 1, 0 = padding (:mod:`benchmarks.lra.text`).

Positions are a learned 1-D table; for images, a learned row table plus a learned column
table (``pos[r * W + c] = row[r] + col[c]``), which can be interpolated to a larger image
(:func:`upsample_positional_2d`: the Path-X recipe of the FlashAttention paper, Dao et al.
2022, Section 4.2, pretrains on Path-64, interpolates the positional embeddings and
fine-tunes at 128 px); or fixed 2-D sinusoids (``"sincos2d"``: half the channels encode the
row, half the column, each as in Vaswani et al. 2017), which give attention a notion of
pixel offsets before any training.

The sequence is pooled by the mean over non-padding tokens, or by a CLS token prepended at
position 0 (so a ``global(1)`` term in the layout lets it see every block in every layer).
When a batch has padding, the mask goes to attention as ``key_padding_mask`` so that no real
token attends to padding; padded rows are left out of the mean. Together these make the
pooled output independent of how much padding follows a sequence (for patterns whose blocks
do not depend on the number of blocks, e.g. ``local``, ``global``, ``butterfly``, ``dense``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

from sparseflash import BlockSparseAttention

POOLINGS = ("mean", "cls")
POSITIONALS = ("learned", "2d", "sincos2d", "none")


class LearnedPositions1D(nn.Module):
    """Learned absolute positions: ``forward(n) -> (n, d)``, ``n <= max_len``."""

    def __init__(self, max_len: int, dim: int):
        super().__init__()
        if max_len < 1:
            raise ValueError(f"max_len must be >= 1, got {max_len}")
        self.max_len = max_len
        self.table = nn.Parameter(torch.randn(max_len, dim) * 0.02)

    def forward(self, n: int) -> torch.Tensor:
        if n > self.max_len:
            raise ValueError(
                f"sequence of {n} tokens is longer than the positional table ({self.max_len}); "
                "build the model with a larger max_len"
            )
        return self.table[:n]


class LearnedPositions2D(nn.Module):
    """Row + column tables for a ``height x width`` image in raster order: ``forward(n) -> (n, d)``.

    ``n`` must be ``height * width`` (every pixel is a token).
    """

    def __init__(self, height: int, width: int, dim: int):
        super().__init__()
        if height < 1 or width < 1:
            raise ValueError(f"image size must be positive, got {height} x {width}")
        self.height, self.width = height, width
        self.row = nn.Parameter(torch.randn(height, dim) * 0.02)
        self.col = nn.Parameter(torch.randn(width, dim) * 0.02)

    def forward(self, n: int) -> torch.Tensor:
        if n != self.height * self.width:
            raise ValueError(
                f"2-D positions are for {self.height}x{self.width} = {self.height * self.width} "
                f"tokens, got a sequence of {n}"
            )
        return (self.row[:, None, :] + self.col[None, :, :]).reshape(n, -1)


class SinusoidalPositions2D(nn.Module):
    """Fixed 2-D sine/cosine positions for a ``height x width`` image in raster order:
    ``forward(n) -> (n, d)``, ``n = height * width``; ``d`` must be a multiple of 4.

    Channels ``[0, d/2)`` encode the row and ``[d/2, d)`` the column, each with the 1-D
    encoding of Vaswani et al. (2017): ``sin(p * w_i), cos(p * w_i)``,
    ``w_i = 10000^(-2i / (d/2))``. The dot product of two such vectors depends only on the
    row and column offsets, so attention can find a pixel's neighbours from the first step.
    The table is a buffer, not a parameter (nothing to learn or to save).
    """

    def __init__(self, height: int, width: int, dim: int):
        super().__init__()
        if height < 1 or width < 1:
            raise ValueError(f"image size must be positive, got {height} x {width}")
        if dim % 4:
            raise ValueError(f"sincos2d positions need d_model divisible by 4, got {dim}")
        self.height, self.width = height, width
        half = dim // 2
        freqs = 10000.0 ** (-torch.arange(0, half, 2, dtype=torch.float64) / half)  # (d/4,)

        def encode(length: int) -> torch.Tensor:  # (length, d/2)
            angles = torch.arange(length, dtype=torch.float64)[:, None] * freqs[None, :]
            return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(length, half)

        rows = encode(height)[:, None, :].expand(height, width, half)
        cols = encode(width)[None, :, :].expand(height, width, half)
        table = torch.cat([rows, cols], dim=-1).reshape(height * width, dim).float()
        self.register_buffer("table", table, persistent=False)

    def forward(self, n: int) -> torch.Tensor:
        if n != self.height * self.width:
            raise ValueError(
                f"2-D positions are for {self.height}x{self.width} = {self.height * self.width} "
                f"tokens, got a sequence of {n}"
            )
        return self.table


class EncoderBlock(nn.Module):
    """Pre-LayerNorm Transformer block: ``x + Drop(Attn(LN(x)))``, then ``x + Drop(FFN(LN(x)))``.

    ``forward(x (B, N, d), key_padding_mask (B, N) bool or None) -> (B, N, d)``;
    ``seq_len``, when given, is the ``N`` whose attention layout is built ahead (see
    ``BlockSparseAttention``).
    """

    def __init__(self, d_model: int, num_heads: int, ffn_dim: int, *, layout: str, block: int,
                 dropout: float, attn_dropout: float, seq_len: Optional[int] = None):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = BlockSparseAttention(d_model, num_heads, layout, block=block,
                                         dropout=attn_dropout, seq_len=seq_len)
        self.norm2 = nn.LayerNorm(d_model)
        self.ffn = nn.Sequential(
            nn.Linear(d_model, ffn_dim), nn.GELU(), nn.Dropout(dropout), nn.Linear(ffn_dim, d_model)
        )
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, key_padding_mask: Optional[torch.Tensor]) -> torch.Tensor:
        x = x + self.drop(self.attn(self.norm1(x), key_padding_mask=key_padding_mask))
        return x + self.drop(self.ffn(self.norm2(x)))


class LRAClassifier(nn.Module):
    """Transformer-encoder sequence classifier over a block-sparse attention pattern.

    Args:
        vocab_size: number of token ids ``V``; inputs must lie in ``[0, V)``.
        num_classes: ``C``.
        d_model, num_heads, num_layers, ffn_dim: encoder sizes (head dim ``d_model /
            num_heads`` must be in sparseflash's 16..256).
        max_len: longest input ``N`` (1-D positions).
        image_size: ``(height, width)`` for the 2-D positionals; inputs then have
            ``N = height * width`` tokens in raster order.
        pad_id: padding token id, or ``None`` when no id is padding (Pathfinder).
        pooling: ``"mean"`` (over non-padding tokens) or ``"cls"``.
        positional: ``"learned"`` (1-D), ``"2d"`` (learned row + column tables),
            ``"sincos2d"`` (fixed 2-D sinusoids) or ``"none"``.
        layout: sparseflash pattern string (``"dense"`` is ordinary attention).
        block: layout block size (power of two >= 16).
        dropout: dropout on the residual branches, inside the FFN and on the embeddings.
        attn_dropout: dropout on attention probabilities (inside the kernel).
        embed_std: standard deviation of the token embeddings at initialisation (0.02 as in
            BERT-style PyTorch code; Flax's ``nn.Embed``, which LRA's models use, draws with
            1.0, so that tokens, not positions, dominate the first layer's input).

    ``forward(tokens (B, N) integer) -> logits (B, C)``; :meth:`features` returns the pooled
    ``(B, d_model)`` representation before the classification head.

    The attention layers build their layouts at construction (and on every move to another
    device) for the full length, ``max_len`` or ``height * width`` tokens plus the CLS
    token, so that ``torch.compile(model)`` is one graph from its first call: the token
    check then runs on the device, and a model with a padding id masks every batch as if
    it held padding (the results of a batch without any are the same).
    """

    def __init__(self, *, vocab_size: int, num_classes: int, d_model: int, num_heads: int,
                 num_layers: int, ffn_dim: int, max_len: Optional[int] = None,
                 image_size: Optional[tuple[int, int]] = None, pad_id: Optional[int] = 0,
                 pooling: str = "mean", positional: str = "learned", layout: str = "dense",
                 block: int = 128, dropout: float = 0.1, attn_dropout: float = 0.0,
                 embed_std: float = 0.02):
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
        if positional not in POSITIONALS:
            raise ValueError(f"positional must be one of {POSITIONALS}, got {positional!r}")
        if vocab_size < 1 or num_classes < 2 or num_layers < 0 or ffn_dim < 1:
            raise ValueError(
                "need vocab_size >= 1, num_classes >= 2, num_layers >= 0 and ffn_dim >= 1, got "
                f"{vocab_size}, {num_classes}, {num_layers}, {ffn_dim}"
            )
        if pad_id is not None and not 0 <= pad_id < vocab_size:
            raise ValueError(f"pad_id={pad_id} is not a token id in [0, {vocab_size})")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.vocab_size, self.num_classes = vocab_size, num_classes
        self.pad_id, self.pooling, self.positional = pad_id, pooling, positional
        self.layout, self.block = layout, block
        # The CLS token gets its own embedding row after the vocabulary.
        self.cls_id = vocab_size if pooling == "cls" else None
        self.embed = nn.Embedding(vocab_size + (pooling == "cls"), d_model, padding_idx=pad_id)
        if not embed_std > 0:
            raise ValueError(f"embed_std must be > 0, got {embed_std}")
        nn.init.normal_(self.embed.weight, std=embed_std)
        if pad_id is not None:
            with torch.no_grad():
                self.embed.weight[pad_id].zero_()
        if positional == "learned":
            if max_len is None:
                raise ValueError("positional='learned' needs max_len")
            self.pos: Optional[nn.Module] = LearnedPositions1D(max_len, d_model)
        elif positional in ("2d", "sincos2d"):
            if image_size is None:
                raise ValueError(f"positional={positional!r} needs image_size=(height, width)")
            kind = LearnedPositions2D if positional == "2d" else SinusoidalPositions2D
            self.pos = kind(image_size[0], image_size[1], d_model)
        else:
            self.pos = None
        self.emb_drop = nn.Dropout(dropout)
        full_len = (image_size[0] * image_size[1] if positional in ("2d", "sincos2d")
                    else max_len)
        if full_len is not None:
            full_len += pooling == "cls"
        self.blocks = nn.ModuleList(
            EncoderBlock(d_model, num_heads, ffn_dim, layout=layout, block=block,
                         dropout=dropout, attn_dropout=attn_dropout, seq_len=full_len)
            for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(d_model)
        # Two-layer classifier head on the pooled vector, as in LRA's models (Tay et al. 2021).
        self.head = nn.Sequential(nn.Linear(d_model, d_model), nn.GELU(),
                                  nn.Linear(d_model, num_classes))

    def _check_tokens(self, tokens: torch.Tensor) -> bool:
        """Validate ``tokens (B, N)``; return whether any token is padding (one host sync;
        none under ``torch.compile``)."""
        if not isinstance(tokens, torch.Tensor) or tokens.dim() != 2:
            shape = tuple(tokens.shape) if isinstance(tokens, torch.Tensor) else type(tokens)
            raise ValueError(f"tokens must be a (B, N) integer tensor, got {shape}")
        if tokens.dtype.is_floating_point or tokens.dtype == torch.bool:
            raise TypeError(f"tokens must be integer ids, got {tokens.dtype}")
        if tokens.numel() == 0:
            raise ValueError(f"empty batch {tuple(tokens.shape)}")
        if torch.compiler.is_compiling():
            # A host read would split the compiled graph here: the ids are checked on the
            # device instead (an out-of-range id stops the program, as the embedding's own
            # bounds check would), and with a padding id every batch is treated as padded.
            torch._assert_async(((tokens >= 0) & (tokens < self.vocab_size)).all(),
                                f"token ids must be in [0, {self.vocab_size})")
            return self.pad_id is not None
        has_pad = (tokens == self.pad_id).any() if self.pad_id is not None else tokens.new_zeros(())
        # Out-of-range ids would be a device-side assert on CUDA; check them on the host.
        lo, hi, pad = torch.stack([tokens.min(), tokens.max(), has_pad.to(tokens.dtype)]).tolist()
        if lo < 0 or hi >= self.vocab_size:
            raise ValueError(f"token ids must be in [0, {self.vocab_size}), got min {lo}, max {hi}")
        return bool(pad)

    def features(self, tokens: torch.Tensor) -> torch.Tensor:
        """Pooled representation: ``tokens (B, N)`` -> ``(B, d_model)``."""
        has_pad = self._check_tokens(tokens)
        tokens = tokens.long()
        x = self.embed(tokens)  # (B, N, d)
        if self.pos is not None:
            x = x + self.pos(tokens.shape[1]).to(x.dtype)
        pad = (tokens == self.pad_id) if has_pad else None  # (B, N) True = padding
        if self.cls_id is not None:
            cls = self.embed.weight[self.cls_id].expand(x.shape[0], 1, -1)
            x = torch.cat([cls.to(x.dtype), x], dim=1)  # (B, 1 + N, d)
            if pad is not None:
                pad = F.pad(pad, (1, 0), value=False)
        x = self.emb_drop(x)
        for block in self.blocks:
            x = block(x, pad)
        x = self.norm(x)
        if self.pooling == "cls":
            return x[:, 0]
        if pad is None:
            return x.mean(dim=1)
        keep = (~pad).to(x.dtype)[..., None]  # (B, N, 1)
        return (x * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1.0)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """``tokens (B, N)`` -> logits ``(B, C)``."""
        return self.head(self.features(tokens))


# --------------------------------------------------------------------------- #
# Positional resizing (Path-64 -> Path-X transfer).
# --------------------------------------------------------------------------- #
def interpolate_table(table: torch.Tensor, new_len: int) -> torch.Tensor:
    """Linearly resample a positional table ``(L, d)`` to ``(new_len, d)``.

    Positions are treated as cell centres (``align_corners=False``), so a table for 64 pixels
    stretched to 128 keeps each learned vector at the same relative place in the image.
    """
    if table.dim() != 2:
        raise ValueError(f"expected a (L, d) table, got {tuple(table.shape)}")
    if new_len < 1:
        raise ValueError(f"new length must be >= 1, got {new_len}")
    if new_len == table.shape[0]:
        return table.clone()
    x = table.detach().float().t()[None]  # (1, d, L)
    out = F.interpolate(x, size=new_len, mode="linear", align_corners=False)
    return out[0].t().to(table.dtype).contiguous()


def upsample_positional_2d(state_dict: Mapping[str, object], height: int, width: int,
                           *, prefix: str = "pos.") -> dict[str, object]:
    """Copy of a model state dict with its 2-D positional tables resized to ``height x width``.

    ``state_dict[prefix + "row"]`` ``(H, d)`` becomes ``(height, d)`` and ``[prefix + "col"]``
    ``(W, d)`` becomes ``(width, d)`` (see :func:`interpolate_table`); every other entry is
    shared unchanged.
    """
    keys = (prefix + "row", prefix + "col")
    missing = [k for k in keys if k not in state_dict]
    if missing:
        raise KeyError(f"state dict has no 2-D positional tables {missing} (was it trained with "
                       "positional='2d'?)")
    out = dict(state_dict)
    out[keys[0]] = interpolate_table(state_dict[keys[0]], height)
    out[keys[1]] = interpolate_table(state_dict[keys[1]], width)
    return out


def adapt_state_dict(state_dict: Mapping[str, object],
                     model: LRAClassifier) -> dict[str, object]:
    """Fit a state dict from another run to ``model``.

    Positional tables of another size are interpolated (2-D tables per axis, 1-D tables
    along their length). Non-tensor entries (``BlockSparseAttention``'s record of the pattern
    it was trained with) are replaced by ``model``'s own: starting a sparse run from dense
    weights, or the reverse, is intended. Any other difference in names or shapes is an error
    that lists it.
    """
    target = model.state_dict()
    out = dict(state_dict)
    if isinstance(model.pos, LearnedPositions2D) and "pos.row" in out and "pos.col" in out:
        out = upsample_positional_2d(out, model.pos.height, model.pos.width)
    elif isinstance(model.pos, LearnedPositions1D) and "pos.table" in out:
        out["pos.table"] = interpolate_table(out["pos.table"], model.pos.max_len)
    for key, value in target.items():
        if not isinstance(value, torch.Tensor) and key in out:
            out[key] = value
    missing = sorted(set(target) - set(out))
    unexpected = sorted(set(out) - set(target))
    mismatched = [f"{k}: {tuple(out[k].shape)} vs {tuple(target[k].shape)}"
                  for k in sorted(set(target) & set(out))
                  if isinstance(target[k], torch.Tensor) and out[k].shape != target[k].shape]
    if missing or unexpected or mismatched:
        raise ValueError(
            "the checkpoint does not fit this model (only positional tables are resized): "
            f"missing {missing}, unexpected {unexpected}, shape mismatches {mismatched}"
        )
    return out


def count_parameters(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def image_side(seq_len: int) -> int:
    """Side of the square image with ``seq_len`` pixels; ``ValueError`` if not a square."""
    side = math.isqrt(seq_len)
    if side * side != seq_len:
        raise ValueError(f"sequence length {seq_len} is not a square image")
    return side
