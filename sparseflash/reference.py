"""Pure PyTorch attention: the CPU backend and the test oracle.

* :func:`dense_attention` is the oracle: a plain masked softmax over a token-level mask
  ``(H, N, Nk)`` (from ``Layout.to_dense()``), run in whatever dtype it is given (tests use
  float64). It builds the N x N scores, so it is for tests and small shapes only.
* :func:`block_forward` / :func:`block_backward` are the ``backend="torch"`` path: the same
  algorithm as the Triton kernels, one query-block row at a time over the row's key-block
  list, gathering those blocks. No N x N tensor: the largest temporary is one row's scores,
  ``(B, H, block, keys in the row)``. The backward recomputes P from the saved
  log-sum-exp, like the kernels.
  On the CPU (float32 / bfloat16 / float16, no dropout, no key padding), a row that needs
  no element mask and lists the same blocks in every head skips the score tile: ATen's
  fused CPU flash attention runs on the row's queries and gathered K/V (see
  :func:`_fused_rows`), with the same natural-log lse, so either backward takes either lse.
* :func:`dropout_keep_mask` reproduces the kernels' Philox keep-mask bit for bit.
* :func:`cpu_dense_applies`, :func:`cpu_dense_forward` / :func:`cpu_dense_backward`: the
  ``backend="torch"`` shortcut for a layout that masks nothing on the CPU (ATen's fused
  flash attention for CPU, with the same natural-log lse convention as ``block_forward``).
"""

from __future__ import annotations

import math
import struct
from typing import List, Optional, Sequence, Tuple

import torch

from .layout.layout import CODE_ANTICAUSAL, CODE_BOUNDS, CODE_CAUSAL, Layout

_MASK32 = 0xFFFFFFFF
_PHILOX_KEY_A, _PHILOX_KEY_B = 0x9E3779B9, 0xBB67AE85
_PHILOX_ROUND_A, _PHILOX_ROUND_B = 0xD2511F53, 0xCD9E8D57
_FULL_CODE = 3  # in the merged per-row lists below: a full block


def _masks_no_key(code: torch.Tensor) -> torch.Tensor:
    """Elementwise on block codes: the block masks no key that exists (full, or partial
    only by ``k < kv_seq_len``, the ragged last key block)."""
    return (code == _FULL_CODE) | (code == CODE_BOUNDS)


# ----------------------------------------------------------------------------- dropout RNG
def _mul32(a: int, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """(high, low) 32-bit halves of the 64-bit product of the constant ``a`` and uint32s
    held in int64 ``x``, without overflowing int64."""
    a_hi, a_lo = a >> 16, a & 0xFFFF
    p_hi, p_lo = x * a_hi, x * a_lo            # each < 2^48
    t = ((p_hi & 0xFFFF) << 16) + p_lo          # < 2^49
    return ((p_hi >> 16) + (t >> 32)) & _MASK32, t & _MASK32


def philox(seed: int, c0, c1, c2, c3, rounds: int = 10) -> Tuple[torch.Tensor, ...]:
    """The four output words of Philox-4x32 (Salmon et al., 2011) as Triton's ``tl.philox``
    computes them, for int64 tensors holding uint32 counters."""
    k0, k1 = seed & _MASK32, (seed >> 32) & _MASK32
    for _ in range(rounds):
        hi_b, lo_b = _mul32(_PHILOX_ROUND_B, c2)
        hi_a, lo_a = _mul32(_PHILOX_ROUND_A, c0)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0, k1 = (k0 + _PHILOX_KEY_A) & _MASK32, (k1 + _PHILOX_KEY_B) & _MASK32
    return c0, c1, c2, c3


_KEYS_PER_PHILOX = 8  # as sparseflash.kernels.common.KEYS_PER_PHILOX
#: The largest dropout probability the 16-bit keep test can express (see keep_threshold).
MAX_DROPOUT_P = 65535 / 65536


def keep_threshold(dropout_p: float) -> int:
    """The integer a 16-bit draw ``u`` must reach to be kept: ``ceil(p * 65536)`` with ``p``
    rounded to float32 first, as a kernel argument is. ``u >= T`` is then exactly the float
    test ``u / 65536 >= p`` (scaling by 2^16 is exact), done with integer compares in the
    kernels instead of int-to-float conversions."""
    if dropout_p == 0:  # every call without dropout, forward and backward
        return 0
    p32 = struct.unpack("f", struct.pack("f", dropout_p))[0]
    threshold = math.ceil(p32 * 65536.0)
    if not 0 <= threshold <= 65535:
        raise ValueError(f"dropout_p must be in [0, {MAX_DROPOUT_P}] (16-bit keep test), "
                         f"got {dropout_p!r}")
    return threshold


def _philox_halves(seed: int, group, q_pos, bh) -> torch.Tensor:
    """The eight 16-bit draws of the Philox call with counters (group, q_pos, bh, 0), on a
    new last axis of size 8 in key order (low half of word 0 first)."""
    c0, c1, c2 = torch.broadcast_tensors(group & _MASK32, q_pos & _MASK32, bh & _MASK32)
    words = torch.stack(philox(seed, c0, c1, c2, torch.zeros_like(c0)), -1)  # (..., 4)
    return torch.stack((words & 0xFFFF, words >> 16), -1).flatten(-2)          # (..., 8)


def _aligned_runs(k_pos: torch.Tensor) -> bool:
    """True when the last axis of ``k_pos`` is whole runs 8g, ..., 8g+7."""
    n = k_pos.shape[-1]
    if n == 0 or n % _KEYS_PER_PHILOX:
        return False
    runs = k_pos.unflatten(-1, (n // _KEYS_PER_PHILOX, _KEYS_PER_PHILOX))
    first = runs[..., :1]
    return bool(((first % _KEYS_PER_PHILOX == 0)
                 & (runs == first + torch.arange(_KEYS_PER_PHILOX, device=k_pos.device))).all())


def dropout_keep_mask(seed: int, dropout_p: float, bh: torch.Tensor, q_pos: torch.Tensor,
                      k_pos: torch.Tensor) -> torch.Tensor:
    """Keep-mask for broadcastable index tensors (batch*head, query, key): True = kept.
    Identical to ``sparseflash.kernels.common.dropout_keep``: the draw for key ``k`` is
    16-bit half ``k % 8`` of the Philox call with counters (k // 8, query, bh, 0)."""
    bh, q_pos, k_pos = bh.long(), q_pos.long(), k_pos.long()
    along_keys_only = all(t.dim() == 0 or t.shape[-1] == 1 for t in (bh, q_pos))
    if along_keys_only and _aligned_runs(k_pos):
        # One Philox call per run of eight keys, as the kernels do: 8x less work.
        group = k_pos[..., ::_KEYS_PER_PHILOX] // _KEYS_PER_PHILOX
        bits = _philox_halves(seed, group, q_pos, bh).flatten(-2)
    else:
        halves = _philox_halves(seed, k_pos // _KEYS_PER_PHILOX, q_pos, bh)
        index = torch.broadcast_to(k_pos % _KEYS_PER_PHILOX, halves.shape[:-1])
        bits = halves.gather(-1, index[..., None])[..., 0]
    return bits >= keep_threshold(dropout_p)


# ----------------------------------------------------------------------------- the oracle
def dense_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor, *,
                    scale: Optional[float] = None,
                    key_padding_mask: Optional[torch.Tensor] = None,
                    dropout_keep: Optional[torch.Tensor] = None, dropout_p: float = 0.0):
    """Masked softmax attention, materialised.

    q (B, H, N, D); k, v (B, Hkv, Nk, D); mask bool (H or 1, N, Nk), True = may attend;
    key_padding_mask bool (B, Nk), True = ignore; dropout_keep bool (B, H, N, Nk).
    Returns (out (B, H, N, D), lse (B, H, N)); rows with no key give 0 and -inf.
    """
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, 1)
    v = v.repeat_interleave(group, 1)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = torch.einsum("bhnd,bhmd->bhnm", q, k) * scale
    allowed = mask[None].to(q.device)
    if key_padding_mask is not None:
        allowed = allowed & ~key_padding_mask[:, None, None, :]
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    probs = torch.exp(scores - lse.masked_fill(lse == float("-inf"), 0)[..., None])
    probs = probs.masked_fill(~allowed, 0.0)
    if dropout_keep is not None:
        probs = probs * dropout_keep / (1.0 - dropout_p)
    return torch.einsum("bhnm,bhmd->bhnd", probs, v), lse


# ----------------------------------------------------------------------------- torch backend
def _contiguous_run(idx: torch.Tensor) -> Optional[Tuple[int, int]]:
    """``(first, count)`` when every head's list ``idx (Hl, c)`` is the same run of
    consecutive key blocks ``first, ..., first + count - 1``, else None. Such a row's K/V
    blocks are one slice of the sequence: a view, no gather (see :meth:`_Blocks.gather`)."""
    c = idx.shape[1]
    first = idx[:1, :1]
    if c == 0 or not bool((idx == first + torch.arange(c)).all()):
        return None
    return int(first), c


def _row_lists(layout: Layout) -> List[Tuple[torch.Tensor, torch.Tensor,
                                             Optional[Tuple[int, int]]]]:
    """For each query-block row i: (key blocks (Hl, c) long, codes (Hl, c) long, run), the
    full and partial lists merged and padded to the longest head with code -1; ``run`` is
    :func:`_contiguous_run` of the key blocks."""
    cached = getattr(layout, "_torch_rows", None)
    if cached is not None:
        return cached
    tables = [t.cpu().long() for t in layout.to("cpu").kernel_tables()[:5]]
    f_off, f_idx, p_off, p_idx, p_code = tables
    h_l, nq = layout.num_heads, layout.num_q_blocks
    rows = []
    for i in range(nq):
        per_head = []
        for h in range(h_l):
            r = h * nq + i
            idx = torch.cat([f_idx[f_off[r]:f_off[r + 1]], p_idx[p_off[r]:p_off[r + 1]]])
            code = torch.cat([torch.full((int(f_off[r + 1] - f_off[r]),), _FULL_CODE),
                              p_code[p_off[r]:p_off[r + 1]]])
            per_head.append((idx, code))
        width = max(len(idx) for idx, _ in per_head)
        idx = torch.zeros(h_l, width, dtype=torch.long)
        code = torch.full((h_l, width), -1, dtype=torch.long)
        for h, (ih, ch) in enumerate(per_head):
            idx[h, :len(ih)], code[h, :len(ch)] = ih, ch
        rows.append((idx, code, _contiguous_run(idx)))
    layout._torch_rows = rows
    return rows


def _fused_rows(layout: Layout) -> List[Optional[int]]:
    """For each query-block row i: how many keys ATen's CPU flash kernel reads when it can
    compute the row on its gathered K/V (the first that many of ``_Blocks.gather``'s
    ``c * block``), or None when the row needs the materialising loop. Once per layout.

    The kernel applies no mask, so a row qualifies when it masks no key that exists:
    every head lists the same non-empty blocks (a head with fewer blocks is padded with
    code -1, so this also needs no code -1), each full or partial with the bounds code
    only, and a ragged last key block (keys past ``kv_seq_len``) is the last of the list,
    where its missing keys are cut off by reading fewer keys. The order of a row's blocks
    does not matter: softmax is over a set of keys, and dK/dV go back to their slots."""
    cached = getattr(layout, "_torch_fused_rows", None)
    if cached is not None:
        return cached
    block, last = layout.block, layout.num_kv_blocks - 1
    missing = layout.num_kv_blocks * block - layout.kv_seq_len  # keys past Nk in `last`
    fused: List[Optional[int]] = []
    for idx, code, _ in _row_lists(layout):
        keys = idx.shape[1] * block
        if (keys == 0 or not bool(_masks_no_key(code).all())
                or not bool((idx == idx[:1]).all())):
            fused.append(None)
        elif missing and int(idx[0, -1]) == last:
            fused.append(keys - missing)                     # the ragged block, cut short
        elif missing and bool((idx[0] == last).any()):
            fused.append(None)                               # ragged inside: not a prefix
        else:
            fused.append(keys)
    layout._torch_fused_rows = fused
    return fused


class _Blocks:
    """Key/value tensors cut into key blocks and expanded to query heads, for gathering one
    query-block row's blocks."""

    def __init__(self, x: torch.Tensor, heads: int, block: int, nk: int):
        B, h_kv, Nk, D = x.shape
        x = x.repeat_interleave(heads // h_kv, 1) if heads != h_kv else x
        pad = nk * block - Nk
        if pad:
            x = torch.nn.functional.pad(x, (0, 0, 0, pad))
        # Heads and key blocks flattened into one axis of block slots h * nk + j, so that a
        # row's blocks are one index_select (4-6x faster on the CPU than advanced indexing
        # over (heads, blocks)), the same slots block_backward accumulates dK/dV into.
        self.blocks = x.reshape(B, heads * nk, block, x.shape[-1])
        self.heads, self.nk = heads, nk

    def gather(self, row: "_RowContext") -> torch.Tensor:
        """The row's key blocks, (B, H, c * block, D): a view of the blocks when the row
        is one run of consecutive blocks in every head (a sliding window, a dense row),
        otherwise a copy."""
        B, _, block, D = self.blocks.shape
        if row.run is not None:
            first, count = row.run
            x = self.blocks.view(B, self.heads, self.nk, block, D)[:, :, first:first + count]
            return x.reshape(B, self.heads, count * block, D)  # contiguous within a head
        return self.blocks.index_select(1, row.slots).view(B, self.heads, -1, D)


class _RowContext:
    """Everything about one query-block row that forward and backward both need."""

    def __init__(self, i, idx, code, run, q_len, layout, heads, key_padding, device):
        block, N, Nk = layout.block, layout.seq_len, layout.kv_seq_len
        if idx.shape[0] != heads:
            idx, code = idx.expand(heads, -1), code.expand(heads, -1)
        self.idx, self.q0 = idx.to(device), i * block
        self.run = run  # (first, count) when the row is one run of blocks, see _Blocks
        # (H*c,) the row's blocks as slots h * nk + j of _Blocks.blocks and of dK/dV.
        head_offset = torch.arange(heads, device=device)[:, None] * layout.num_kv_blocks
        self.slots = (self.idx + head_offset).flatten()
        self.q_pos = torch.arange(self.q0, self.q0 + q_len, device=device)
        k_pos = (self.idx[..., None] * block + torch.arange(block, device=device)).flatten(1)
        self.k_pos = k_pos                                   # (H, c*block)
        # Most rows of most layouts are full blocks inside the sequence with no padding:
        # then nothing is masked, and building and applying a mask is a large share of the
        # CPU time. Decided on the CPU lists, so a GPU run does not sync per row.
        unmasked = (bool(_masks_no_key(code).all())
                    and (int(idx.max()) + 1) * block <= Nk and key_padding is None)
        if unmasked:
            self.allowed = None
            return
        code_k = code.to(device).repeat_interleave(block, 1)  # (H, c*block)
        causal = self.q_pos[None, :, None] >= k_pos[:, None, :]  # (H, bq, c*block)
        ok = _masks_no_key(code_k)[:, None, :] \
            | ((code_k == CODE_CAUSAL)[:, None, :] & causal) \
            | ((code_k == CODE_ANTICAUSAL)[:, None, :] & ~causal)
        ok = ok & (k_pos < Nk)[:, None, :]
        self.allowed = ok[None]  # (1, H, bq, c*block), or None when everything is on
        if key_padding is not None:
            pad = key_padding[:, k_pos.clamp(max=Nk - 1)]      # (B, H, c*block)
            self.allowed = self.allowed & ~pad[:, :, None, :]

    def keep(self, seed, dropout_p, B, heads):
        bh = torch.arange(B * heads, device=self.k_pos.device).view(B, heads, 1, 1)
        return dropout_keep_mask(seed, dropout_p, bh, self.q_pos[None, None, :, None],
                                 self.k_pos[None, :, None, :])


def _compute_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float64 if dtype == torch.float64 else torch.float32


def block_forward(q, k, v, layout: Layout, scale: float, key_padding=None, seed: int = 0,
                  dropout_p: float = 0.0, rows: Optional[Sequence[int]] = None):
    """Torch backend forward. Shapes as in :func:`sparseflash.attention`; returns
    (out (B, H, N, D) in q's dtype, lse (B, H, N) float32).

    ``rows``: compute only these query-block rows (the others stay 0 and -inf), e.g. to
    check a few rows of a sequence far too long for a full reference."""
    B, H, N, D = q.shape
    ct = _compute_dtype(q.dtype)
    block = layout.block
    K = _Blocks(k.to(ct), H, block, layout.num_kv_blocks)
    V = _Blocks(v.to(ct), H, block, layout.num_kv_blocks)
    out = torch.zeros(B, H, N, D, dtype=q.dtype, device=q.device)
    lse = torch.full((B, H, N), float("-inf"), dtype=torch.float32, device=q.device)
    row_lists = _row_lists(layout)
    # Rows that ATen's fused CPU kernel computes instead of the loop below (None: none).
    fused = _fused_rows(layout) if _cpu_flash_usable(q, key_padding, dropout_p) else None
    for i in (range(len(row_lists)) if rows is None else rows):
        idx, code, run = row_lists[i]
        if idx.shape[1] == 0:
            continue
        q_i = q[:, :, i * block:(i + 1) * block].to(ct)
        row = _RowContext(i, idx, code, run, q_i.shape[2], layout, H, key_padding, q.device)
        if fused is not None and fused[i] is not None:
            # No score tile: one pass over the row's keys (the first fused[i] gathered ones,
            # see _fused_rows), in the compute dtype like the loop; the kernel's lse is the
            # loop's (natural log, float32), so block_backward may take either. q is scaled
            # here, as in the loop, and the kernel given scale 1: its own scaling rounds
            # q.k before scaling it, which at large logits (~3000) made dV's error 10x the
            # loop's (measured).
            keys = fused[i]
            o_i, lse_i = _CPU_FLASH_FORWARD(
                _unit_stride(q_i * scale), _unit_stride(K.gather(row)[:, :, :keys]),
                _unit_stride(V.gather(row)[:, :, :keys]), 0.0, False, scale=1.0)
            out[:, :, i * block:(i + 1) * block] = o_i.to(q.dtype)
            lse[:, :, i * block:(i + 1) * block] = lse_i
            continue
        s = torch.einsum("bhnd,bhmd->bhnm", q_i * scale, K.gather(row))
        if row.allowed is not None:
            s.masked_fill_(~row.allowed, float("-inf"))
        m = s.amax(-1, keepdim=True)
        m = m.masked_fill(m == float("-inf"), 0.0)  # a row with no key: exp gives 0, not NaN
        p = s.sub_(m).exp_()                        # in place: s is not needed again
        l_row = p.sum(-1)
        if dropout_p > 0:
            p.mul_(row.keep(seed, dropout_p, B, H) / (1.0 - dropout_p))
        o_i = torch.einsum("bhnm,bhmd->bhnd", p, V.gather(row))
        has_keys = l_row > 0
        out[:, :, i * block:(i + 1) * block] = (
            o_i / torch.where(has_keys, l_row, 1.0)[..., None]).to(q.dtype)
        lse[:, :, i * block:(i + 1) * block] = (m.squeeze(-1) + torch.log(l_row)).float()
    return out, lse


def block_backward(do, q, k, v, o, lse, layout: Layout, scale: float, key_padding=None,
                   seed: int = 0, dropout_p: float = 0.0):
    """Torch backend backward: recomputes each row's P from ``lse``. Returns (dq, dk, dv)."""
    B, H, N, D = q.shape
    H_kv, Nk = k.shape[1], k.shape[2]
    ct = _compute_dtype(q.dtype)
    block, nk = layout.block, layout.num_kv_blocks
    K = _Blocks(k.to(ct), H, block, nk)
    V = _Blocks(v.to(ct), H, block, nk)
    dq = torch.zeros(B, H, N, D, dtype=ct, device=q.device)
    dk_blocks = torch.zeros(B, H * nk, block, D, dtype=ct, device=q.device)
    dv_blocks = torch.zeros_like(dk_blocks)
    # The rows block_forward gave to ATen's fused kernel: the same predicate on the same
    # layout and arguments. Either way a row's lse is the natural-log float32 one.
    fused = _fused_rows(layout) if _cpu_flash_usable(q, key_padding, dropout_p) else None
    for i, (idx, code, run) in enumerate(_row_lists(layout)):
        if idx.shape[1] == 0:
            continue
        rows = slice(i * block, (i + 1) * block)
        q_i, do_i, o_i = q[:, :, rows].to(ct), do[:, :, rows].to(ct), o[:, :, rows].to(ct)
        row = _RowContext(i, idx, code, run, q_i.shape[2], layout, H, key_padding, q.device)
        k_sel, v_sel = K.gather(row), V.gather(row)
        c = row.idx.shape[1]
        if fused is not None and fused[i] is not None:
            keys = fused[i]
            # q scaled as in block_forward: the gradient it gives is for q * scale.
            dq_i, dk_new, dv_new = _CPU_FLASH_BACKWARD(
                _unit_stride(do_i), _unit_stride(q_i * scale),
                _unit_stride(k_sel[:, :, :keys]), _unit_stride(v_sel[:, :, :keys]),
                _unit_stride(o_i), lse[:, :, rows], 0.0, False, scale=1.0)
            dq_i = dq_i * scale
            if keys < c * block:  # the ragged block's keys past Nk: zero gradient
                dk_new, dv_new = (torch.nn.functional.pad(g, (0, 0, 0, c * block - keys))
                                  for g in (dk_new, dv_new))
            # Every head lists the same blocks (_fused_rows): added along the block axis of
            # (B, H, nk, block, D), which reads the kernel's strided (B, keys, H, D)
            # outputs as they are; the slots' (B, H*c, ...) reshape would copy them (4x
            # slower, measured).
            for acc, g in ((dk_blocks, dk_new), (dv_blocks, dv_new)):
                acc.view(B, H, nk, block, D).index_add_(2, row.idx[0],
                                                        g.unflatten(2, (c, block)))
        else:
            s = torch.einsum("bhnd,bhmd->bhnm", q_i * scale, k_sel)
            lse_i = lse[:, :, rows].to(ct)
            lse_i = lse_i.masked_fill(lse_i == float("-inf"), float("inf"))
            p = s.sub_(lse_i[..., None]).exp_()
            if row.allowed is not None:
                p.masked_fill_(~row.allowed, 0.0)
            dp = torch.einsum("bhnd,bhmd->bhnm", do_i, v_sel)
            if dropout_p > 0:
                keep = row.keep(seed, dropout_p, B, H) / (1.0 - dropout_p)
                p_drop, dp = p * keep, dp.mul_(keep)
            else:
                p_drop = p
            delta = (do_i * o_i).sum(-1, keepdim=True)
            ds = dp.sub_(delta).mul_(p)
            dq_i = torch.einsum("bhnm,bhmd->bhnd", ds, k_sel) * scale
            dv_new = torch.einsum("bhnm,bhnd->bhmd", p_drop, do_i)
            dk_new = torch.einsum("bhnm,bhnd->bhmd", ds, q_i) * scale
            dv_blocks.index_add_(1, row.slots, dv_new.reshape(B, H * c, block, D))
            dk_blocks.index_add_(1, row.slots, dk_new.reshape(B, H * c, block, D))
        dq[:, :, rows] = dq_i

    def fold(blocks):  # (B, H*nk, block, D) -> (B, H_kv, Nk, D), summing each GQA group
        x = blocks.view(B, H, nk * block, D)[:, :, :Nk]
        return x.view(B, H_kv, H // H_kv, Nk, D).sum(2)
    return dq.to(q.dtype), fold(dk_blocks).to(k.dtype), fold(dv_blocks).to(v.dtype)


# ----------------------------------------------------------------------------- CPU dense path
# ATen's fused flash attention for the CPU (what F.scaled_dot_product_attention runs there):
# no score tile in memory, one pass, 2.4-2.8x faster forward + backward than the loop above
# on a dense layout. Private ops, looked up rather than assumed: without them (another torch
# version), cpu_dense_applies says no and the block loop runs.
_CPU_FLASH_FORWARD = getattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu",
                             None)
_CPU_FLASH_BACKWARD = getattr(torch.ops.aten,
                              "_scaled_dot_product_flash_attention_for_cpu_backward", None)
# float64 is left to the block loop, which computes in float64: it is the exact path.
_CPU_FLASH_DTYPES = (torch.float32, torch.bfloat16, torch.float16)


def _masks_nothing(layout: Layout) -> bool:
    """True when every query may attend to every key: every query-block row qualifies for
    the fused kernel (:func:`_fused_rows`) and reads all ``kv_seq_len`` keys, i.e. lists
    every key block in every head, each full or with the bounds mask only (the ragged last
    key block, which masks no key that exists)."""
    return all(keys == layout.kv_seq_len for keys in _fused_rows(layout))


def _cpu_flash_usable(q: torch.Tensor, key_padding, dropout_p: float) -> bool:
    """Whether the call allows ATen's CPU flash kernel at all (for the whole layout, see
    :func:`cpu_dense_applies`, or for single rows, see :func:`_fused_rows`): CPU tensors in
    float32, bfloat16 or float16, no dropout, no key padding (neither of which the kernel
    applies as this library does), and the private ATen ops present."""
    return (q.device.type == "cpu" and q.dtype in _CPU_FLASH_DTYPES and dropout_p == 0
            and key_padding is None and _CPU_FLASH_FORWARD is not None
            and _CPU_FLASH_BACKWARD is not None)


def cpu_dense_applies(q: torch.Tensor, layout: Layout, key_padding=None,
                      dropout_p: float = 0.0) -> bool:
    """Whether :func:`cpu_dense_forward` / :func:`cpu_dense_backward` compute what
    ``block_forward`` / ``block_backward`` would for these arguments: the call allows the
    kernel (:func:`_cpu_flash_usable`) and the layout masks nothing
    (:func:`_masks_nothing`). Cheap checks first: the layout's rests on a per-layout
    cache."""
    return _cpu_flash_usable(q, key_padding, dropout_p) and _masks_nothing(layout)


def _unit_stride(x: torch.Tensor) -> torch.Tensor:
    # The ATen kernel reads any batch/head/sequence strides but assumes the head dim is
    # contiguous: with another stride it silently returns wrong numbers (NaN, measured).
    return x if x.stride(-1) == 1 else x.contiguous()


def _kv_for_query_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """``(B, Hkv, Nk, D) -> (B, heads, Nk, D)``, query head h reading key/value head
    ``h // (heads // Hkv)`` as everywhere in the library (GQA, MQA). Expanded here rather
    than left to the private kernel, whose GQA support depends on the torch version."""
    group = heads // x.shape[1]
    return _unit_stride(x) if group == 1 else x.repeat_interleave(group, 1)


def _scaled_query(q: torch.Tensor, scale: float) -> Tuple[torch.Tensor, float]:
    """``(q for the kernel, the scale to give it)``. float32 q is scaled here and the kernel
    given 1, as for block_forward's fused rows: the kernel's own scaling made dV's error 10x
    the loop's at scale 100 (logits ~3000). Half-precision q keeps the kernel's scaling,
    which happens in float32, instead of rounding ``q * scale`` to 8 or 11 bits."""
    if q.dtype == torch.float32:
        return _unit_stride(q * scale), 1.0
    return _unit_stride(q), scale


def cpu_dense_forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float
                      ) -> Tuple[torch.Tensor, torch.Tensor]:
    """Unmasked attention through ATen's CPU flash kernel, for when
    :func:`cpu_dense_applies`. q ``(B, H, N, D)``; k, v ``(B, Hkv, Nk, D)``.

    Returns ``(out (B, H, N, D) in q's dtype, lse (B, H, N) float32)``, both contiguous
    like ``block_forward``'s; the lse is the natural-log log-sum-exp of the scaled scores,
    which :func:`cpu_dense_backward` (and ``block_backward``) take back."""
    H = q.shape[1]
    q_in, kernel_scale = _scaled_query(q, scale)
    out, lse = _CPU_FLASH_FORWARD(q_in, _kv_for_query_heads(k, H),
                                  _kv_for_query_heads(v, H), 0.0, False, scale=kernel_scale)
    # The kernel's lse is float32 (its accumulation type, for half inputs too) laid out
    # (B, N, H) in memory: made the (B, H, N) contiguous tensor attention() returns.
    return out.contiguous(), lse.to(torch.float32).contiguous()


def cpu_dense_backward(do: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                       o: torch.Tensor, lse: torch.Tensor, scale: float
                       ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The backward of :func:`cpu_dense_forward` from its ``o`` and ``lse`` (shapes as
    there). Returns contiguous (dq, dk, dv) in the inputs' dtype; dk, dv ``(B, Hkv, Nk, D)``
    summed over each GQA group."""
    H, h_kv = q.shape[1], k.shape[1]
    q_in, kernel_scale = _scaled_query(q, scale)
    dq, dk, dv = _CPU_FLASH_BACKWARD(
        _unit_stride(do), q_in, _kv_for_query_heads(k, H),
        _kv_for_query_heads(v, H), _unit_stride(o), lse, 0.0, False, scale=kernel_scale)
    if kernel_scale != scale:
        dq = dq * scale  # the kernel's dq is the gradient for q * scale

    def fold(g, like):  # (B, H, Nk, D) -> (B, Hkv, Nk, D), summed in float32 per group
        if h_kv == H:
            return g.contiguous()
        return g.unflatten(1, (h_kv, H // h_kv)).sum(2, dtype=torch.float32).to(
            like.dtype).contiguous()
    return dq.contiguous(), fold(dk, k), fold(dv, v)
