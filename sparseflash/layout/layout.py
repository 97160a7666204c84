"""The compiled block layout: which blocks are on, which of them need an element mask, and
the index tables the kernels walk."""

from __future__ import annotations

import warnings
from functools import cached_property
from typing import Dict, Optional, Tuple

import torch

from .errors import LayoutError
from .schedule import (FULL_END, FULL_START, PARTIAL_END, PARTIAL_START, SLOT,
                       build_schedule)

try:  # torch.compiler.disable, but importing torch._dynamo only when first called (~1 s)
    from torch._compile import _disable_dynamo as _eager_under_compile
except ImportError:  # pragma: no cover - a torch without it
    _eager_under_compile = torch.compiler.disable


def warn_if_compiling(what: str) -> None:
    """Warn when ``what`` (a layout or its tables) is about to be built inside a function
    that ``torch.compile`` is tracing: the build runs eagerly there (see
    :meth:`Layout.prepare`), which breaks the graph, and the compiled code keeps that split
    on every later call. Once per trace: a compiled function runs its Python only then."""
    if torch.compiler.is_compiling():
        warnings.warn(
            f"sparseflash: {what} is built inside a torch.compile'd call, which breaks the "
            "graph there for good; build it before compiling: compile_layout(...), "
            "BlockSparseAttention(..., seq_len=N) or its layout_for(N), or "
            "sparseflash.nn.prepare_layouts(model, N)", stacklevel=3)


# What a partial block's element mask is, besides the bounds (k < kv_seq_len) that every
# partial block applies: nothing more, q >= k (causal diagonal), or q < k.
CODE_BOUNDS, CODE_CAUSAL, CODE_ANTICAUSAL = 0, 1, 2
# Layout.kernel_meta's has_partial where some partial block is anti-causal (1: partial
# blocks, none anti-causal; 0: none): the Gluon forward then compiles that mask's branch.
PARTIAL_ANTICAUSAL = 2


def canonical_device(device) -> torch.device:
    """``torch.device`` with the index spelled out, so that a layout built for ``"cuda"`` is
    recognised as already being where ``cuda:0`` tensors are (``torch.device("cuda") !=
    torch.device("cuda:0")``): otherwise every call would copy the tables again."""
    device = torch.device(device)
    if device.type == "cpu":
        return torch.device("cpu")
    if device.index is None and device.type == "cuda" and torch.cuda.is_available():
        return torch.device("cuda", torch.cuda.current_device())
    return device


def _csr(keys: torch.Tensor, num_rows: int, row_len: int, other_len: int, transpose: bool):
    """Group flat keys ``(h * R + r) * C + c`` into CSR rows.

    Returns ``(counts (num_rows,), offsets (num_rows + 1,), indices (nnz,), order (nnz,))``
    where ``order`` maps CSR positions back to positions in ``keys`` (to carry codes along).
    With ``transpose`` the keys are ``(h, i, j)`` and the rows are ``(h, j)`` columns.
    """
    if transpose:
        h = keys // (row_len * other_len)
        rest = keys % (row_len * other_len)
        i, j = rest // other_len, rest % other_len  # here row_len = nq, other_len = nk
        row, col = h * other_len + j, i
        order = torch.argsort(row * row_len + col)
    else:
        row, col = keys // other_len, keys % other_len
        order = torch.arange(keys.numel())  # keys are sorted: rows already grouped
    row, col = row[order], col[order]
    counts = torch.bincount(row, minlength=num_rows)
    offsets = torch.zeros(num_rows + 1, dtype=torch.long)
    offsets[1:] = torch.cumsum(counts, 0)
    return counts, offsets, col, order


class Layout:
    """A compiled block-sparse attention layout.

    Basics:
        ``layout = sparseflash.compile_layout("local(1) | global(1)", seq_len=1000, block=128)``
        gives an ``(H, nq, nk)`` grid of blocks with ``nq = ceil(seq_len / block)`` query
        blocks and ``nk = ceil(kv_seq_len / block)`` key blocks. ``H`` is 1 when the pattern
        does not depend on the head (it then broadcasts over heads). ``print(layout)`` draws
        it.

    Details:
        * ``mask`` (bool ``(H, nq, nk)``): the blocks that are on.
        * ``full`` (bool ``(H, nq, nk)``): on blocks that need no element mask. The others
          are *partial*: the causal diagonal, the ragged last key block, and so on.
        * Kernel tables, int32, full and partial kept apart:
          per query-block row the key blocks (``full_kv_num_blocks (H, nq)``,
          ``full_kv_indices (H, nq, max)``, ``partial_kv_*`` likewise), and per key-block
          column the query blocks (``full_q_num_blocks (H, nk)``, ``full_q_indices``, ...).
          ``kv_num_blocks``/``kv_indices`` and ``q_num_blocks``/``q_indices`` list all on
          blocks, full and partial merged, in index order. Padded tables are filled with 0
          past each row's count.
        * :meth:`kernel_tables` gives the same lists as CSR (offsets + flat indices), which
          is what the kernels read: O(nnz) memory however unequal the rows are.
        * ``to_dense()`` is the exact token-level mask ``(H, seq_len, kv_seq_len)``, for
          tests and small shapes.
    """

    def __init__(self, *, full_keys: torch.Tensor, partial_keys: torch.Tensor,
                 partial_codes: torch.Tensor, num_heads: int, seq_len: int, kv_seq_len: int,
                 block: int, pattern: Optional[str] = None,
                 device: torch.device = torch.device("cpu")):
        self.full_keys = full_keys          # sorted int64 keys (h * nq + i) * nk + j
        self.partial_keys = partial_keys
        self.partial_codes = partial_codes  # int8, one per partial key
        self.num_heads = num_heads
        self.seq_len, self.kv_seq_len, self.block = seq_len, kv_seq_len, block
        self.num_q_blocks = -(-seq_len // block)
        self.num_kv_blocks = -(-kv_seq_len // block)
        self.pattern = pattern
        self.device = canonical_device(device)
        self._cpu_tables: Dict[str, torch.Tensor] = {}  # built once, on the CPU
        self._tables: Dict[str, torch.Tensor] = {}      # the same on self.device
        self._copies: Dict[torch.device, "Layout"] = {}  # to(): one copy per device
        self._kernel_tables: Optional[Tuple[torch.Tensor, ...]] = None
        self._row_keys: Optional[Tuple[torch.Tensor, ...]] = None  # for padding_limits
        self._kernel_meta: Optional[Tuple[int, ...]] = None

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def from_block_mask(cls, mask: torch.Tensor, seq_len: int, *, kv_seq_len: Optional[int] = None,
                        block: int = 128, device=None) -> "Layout":
        """A layout from a bool block mask ``(H or 1, nq, nk)``: on blocks are full, except
        the ragged last key block, which needs the bounds mask."""
        kv_seq_len = seq_len if kv_seq_len is None else kv_seq_len
        nq, nk = -(-seq_len // block), -(-kv_seq_len // block)
        if mask.dtype != torch.bool:
            raise LayoutError(f"a block mask must be a bool tensor, got dtype {mask.dtype}")
        if mask.dim() == 2:
            mask = mask[None]
        if mask.dim() != 3 or tuple(mask.shape[1:]) != (nq, nk):
            raise LayoutError(
                f"block mask has shape {tuple(mask.shape)}, expected (H or 1, {nq}, {nk}) for "
                f"seq_len={seq_len}, kv_seq_len={kv_seq_len}, block={block}: nq = "
                "ceil(seq_len / block), nk = ceil(kv_seq_len / block)")
        keys = torch.nonzero(mask.flatten().cpu()).flatten()
        ragged = (keys % nk == nk - 1) if kv_seq_len % block else torch.zeros_like(keys, dtype=torch.bool)
        partial = keys[ragged]
        return cls(full_keys=keys[~ragged], partial_keys=partial,
                   partial_codes=torch.full_like(partial, CODE_BOUNDS, dtype=torch.int8),
                   num_heads=mask.shape[0], seq_len=seq_len, kv_seq_len=kv_seq_len,
                   block=block, device=device or mask.device)

    def to(self, device) -> "Layout":
        """This layout with its tables on ``device`` (the same object if already there)."""
        device = canonical_device(device)
        if device == self.device:
            return self
        copy = self._copies.get(device)
        if copy is None:
            warn_if_compiling(f"a layout's copy on {device}")
            copy = self._copy_to(device)
        return copy

    @_eager_under_compile
    def _copy_to(self, device: torch.device) -> "Layout":
        """The copy on ``device``, made once, its kernel tables built (run eagerly under
        ``torch.compile``: see :meth:`prepare`)."""
        copy = self._copies[device] = Layout(
            full_keys=self.full_keys, partial_keys=self.partial_keys,
            partial_codes=self.partial_codes, num_heads=self.num_heads,
            seq_len=self.seq_len, kv_seq_len=self.kv_seq_len, block=self.block,
            pattern=self.pattern, device=device)
        copy._cpu_tables = self._cpu_tables  # device-independent: share, do not rebuild
        return copy.prepare()

    def check_compatible(self, seq_len: int, kv_seq_len: int, block: int,
                         num_heads: Optional[int]) -> None:
        """Raise :class:`LayoutError` unless this layout fits the given shapes."""
        if (self.seq_len, self.kv_seq_len, self.block) != (seq_len, kv_seq_len, block):
            raise LayoutError(
                f"layout was compiled for seq_len={self.seq_len}, kv_seq_len={self.kv_seq_len}, "
                f"block={self.block} but is used with seq_len={seq_len}, kv_seq_len={kv_seq_len}, "
                f"block={block}: compile a new layout for these shapes (or pass the pattern "
                "string and let the library compile and cache it)")
        if num_heads is not None and self.num_heads not in (1, num_heads):
            raise LayoutError(f"layout has {self.num_heads} heads but is used with {num_heads}: "
                              "a layout has 1 head (broadcast) or one per query head")

    # -- sizes -----------------------------------------------------------------------------
    @property
    def shape(self) -> Tuple[int, int, int]:
        return (self.num_heads, self.num_q_blocks, self.num_kv_blocks)

    @property
    def nnz(self) -> int:
        """Number of on blocks, summed over heads."""
        return self.full_keys.numel() + self.partial_keys.numel()

    def mean_blocks(self, axis: str = "kv") -> int:
        """Mean on blocks per row (``"kv"``: keys per query block) or per column
        (``"q"``), rounded down; the kernels' autotuning reads it."""
        h, nq, nk = self.shape
        return self.nnz // (h * (nq if axis == "kv" else nk))

    @property
    def density(self) -> float:
        """nnz / (H * nq * nk)."""
        h, nq, nk = self.shape
        return self.nnz / (h * nq * nk)

    # -- dense views -----------------------------------------------------------------------
    def _grid(self, keys: torch.Tensor) -> torch.Tensor:
        grid = torch.zeros(self.shape, dtype=torch.bool)
        grid.view(-1)[keys] = True
        return grid.to(self.device)

    @cached_property
    def mask(self) -> torch.Tensor:
        """bool ``(H, nq, nk)``: blocks that are on (materialised on first use)."""
        return self._grid(torch.cat([self.full_keys, self.partial_keys]))

    @cached_property
    def full(self) -> torch.Tensor:
        """bool ``(H, nq, nk)``: on blocks that need no element mask."""
        return self._grid(self.full_keys)

    def block_codes(self) -> torch.Tensor:
        """int8 ``(H, nq, nk)``: -1 off, 3 full, else the partial code (CODE_*)."""
        codes = torch.full(self.shape, -1, dtype=torch.int8)
        codes.view(-1)[self.full_keys] = 3
        codes.view(-1)[self.partial_keys] = self.partial_codes
        return codes

    def to_dense(self) -> torch.Tensor:
        """The exact token-level mask, bool ``(H, seq_len, kv_seq_len)``: True = may attend."""
        codes = self.block_codes()
        q = torch.arange(self.seq_len)
        k = torch.arange(self.kv_seq_len)
        qb, kb = q // self.block, k // self.block

        def expand(blocks: torch.Tensor) -> torch.Tensor:  # (H, nq, nk) -> (H, N, Nk)
            return blocks[:, qb][:, :, kb]

        # Full blocks and bounds-only partial blocks are all on inside the range.
        dense = expand((codes == 3) | (codes == CODE_BOUNDS))
        if (codes == CODE_CAUSAL).any():
            dense |= expand(codes == CODE_CAUSAL) & (q[:, None] >= k[None, :])
        if (codes == CODE_ANTICAUSAL).any():
            dense |= expand(codes == CODE_ANTICAUSAL) & (q[:, None] < k[None, :])
        return dense.to(self.device)

    # -- kernel tables ---------------------------------------------------------------------
    def _build(self, name: str, cpu: bool = False) -> torch.Tensor:
        if name not in self._tables:
            self._make_tables()
        return self._cpu_tables[name] if cpu else self._tables[name]

    def _make_tables(self) -> None:
        if not self._cpu_tables:  # a copy made by to() shares its source's CPU tables
            self._cpu_tables = self._csr_tables()
        self._tables = {k: v.to(self.device) for k, v in self._cpu_tables.items()}

    def _csr_tables(self) -> Dict[str, torch.Tensor]:
        h, nq, nk = self.shape
        t: Dict[str, torch.Tensor] = {}
        for kind, keys in (("full", self.full_keys), ("partial", self.partial_keys)):
            for axis, rows, row_len, transpose in (("kv", h * nq, nq, False),
                                                   ("q", h * nk, nq, True)):
                counts, offsets, indices, order = _csr(keys, rows, row_len, nk, transpose)
                t[f"{kind}_{axis}_num_blocks"] = counts.view(h, -1)
                t[f"{kind}_{axis}_offsets"] = offsets
                t[f"{kind}_{axis}_flat"] = indices
                if kind == "partial":
                    t[f"partial_{axis}_codes"] = self.partial_codes[order]
        t.update(self._schedule_tables("kv", t))
        t.update(self._schedule_tables("q", t))
        return {k: v.to(torch.int32) for k, v in t.items()}

    @staticmethod
    def _schedule_tables(axis: str, t: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        """The program schedule over rows (``axis="kv"``) or columns (``"q"``)."""
        sched = build_schedule(t[f"full_{axis}_offsets"], t[f"partial_{axis}_offsets"])
        return {f"{axis}_schedule": sched.entries, f"{axis}_split_slots": sched.split_slots,
                f"{axis}_split_rows": sched.split_rows}

    def schedule_sizes(self, axis: str = "kv") -> Tuple[int, int, int]:
        """``(programs, slots, split rows)`` of the ``kv`` (rows) or ``q`` (columns)
        schedule: see :mod:`sparseflash.layout.schedule`."""
        entries = self._build(f"{axis}_schedule", cpu=True)
        return (entries.shape[0], int((entries[:, SLOT] >= 0).sum()),
                self._build(f"{axis}_split_rows", cpu=True).numel())

    def longest_stretch(self, axis: str = "kv") -> int:
        """The most full blocks one program of the ``kv`` (rows) or ``q`` (columns)
        schedule walks: a row's or column's full list, or a split one's longest chunk. The
        forward holds a row stretch this short in registers instead of reading the table
        in its loop."""
        entries = self._build(f"{axis}_schedule", cpu=True).long()
        if entries.numel() == 0:
            return 0
        return int((entries[:, FULL_END] - entries[:, FULL_START]).max())

    def uniform_blocks(self, axis: str = "q") -> int:
        """The blocks (full and partial) of every entry of the ``q`` (dK/dV columns) or
        ``kv`` (forward rows) schedule where all its entries have as many and none is
        split (dense, ``chunk``, ``butterfly`` layouts), else 0. The fused backward and the
        persistent forward may then take some of them in chunks to fill their last wave
        (``schedule.fill_last_wave``)."""
        entries = self._build(f"{axis}_schedule", cpu=True).long()
        if entries.numel() == 0 or bool((entries[:, SLOT] >= 0).any()):
            return 0
        counts = (entries[:, FULL_END] - entries[:, FULL_START]
                  + entries[:, PARTIAL_END] - entries[:, PARTIAL_START])
        return int(counts[0]) if bool((counts == counts[0]).all()) else 0

    def _lists_are_runs(self, axis: str) -> bool:
        """Whether every row (``"kv"``) or column (``"q"``) lists consecutive full blocks:
        lists ascend, so last - first = count - 1."""
        offsets = self._build(f"full_{axis}_offsets", cpu=True).long()
        flat = self._build(f"full_{axis}_flat", cpu=True).long()
        starts, ends = offsets[:-1], offsets[1:]
        listed = ends > starts
        first, last = flat[starts[listed]], flat[ends[listed] - 1]
        return bool(torch.equal(last - first, ends[listed] - starts[listed] - 1))

    def columns_are_runs(self) -> bool:
        """Whether every column lists its full query blocks consecutively (dense, causal,
        banded layouts; not butterfly or random ones). The dK/dV kernel then walks them
        at computed offsets instead of through the table."""
        return self._lists_are_runs("q")

    def rows_are_runs(self) -> bool:
        """Whether every row lists its full key blocks consecutively. The forward walks
        such rows at computed offsets anyway; when all of them are, it is compiled without
        the table walk, whose empty loop still costs a short row's program a few percent."""
        return self._lists_are_runs("kv")

    def kernel_meta(self) -> Tuple[int, ...]:
        """The integers the kernels need beside :meth:`kernel_tables`, in the field order of
        ``sparseflash.kernels.launch.LayoutMeta``: block, heads, nq, nk, the ``kv`` and ``q``
        :meth:`schedule_sizes`, the ``kv`` and ``q`` :meth:`mean_blocks`,
        :meth:`columns_are_runs`, :meth:`rows_are_runs`, whether any block is partial
        (has an element mask: 1, or :data:`PARTIAL_ANTICAUSAL` where some of them are
        anti-causal; 0 if none), the ``kv`` :meth:`longest_stretch` and the ``q`` and
        ``kv`` :meth:`uniform_blocks`. One place,
        so the launcher and ``attention()`` (which must not import Triton) cannot
        disagree."""
        if self._kernel_meta is None:  # read on every attention() call: derive once
            self._prepare_in_call()
        return self._kernel_meta

    def _partial_kind(self) -> int:
        """:meth:`kernel_meta`'s has_partial: 0, 1 or :data:`PARTIAL_ANTICAUSAL`."""
        if self.partial_keys.numel() == 0:
            return 0
        return PARTIAL_ANTICAUSAL if bool((self.partial_codes == CODE_ANTICAUSAL).any()) else 1

    def kernel_tables(self) -> Tuple[torch.Tensor, ...]:
        """The CSR tables the kernels read, int32 on ``self.device``, in this order:

        rows (forward, dQ): ``full_kv_offsets (H*nq+1,)``, ``full_kv_flat``,
        ``partial_kv_offsets``, ``partial_kv_flat``, ``partial_kv_codes``;
        columns (dK, dV): ``full_q_offsets (H*nk+1,)``, ``full_q_flat``,
        ``partial_q_offsets``, ``partial_q_flat``, ``partial_q_codes``.
        Row ``h * nq + i`` lists key blocks ``flat[offsets[r]:offsets[r+1]]``, ascending.
        Then the forward's program schedule (:mod:`~sparseflash.layout.schedule`):
        ``kv_schedule (P, 6)``, ``kv_split_slots (U, C)``, ``kv_split_rows (U,)``, and the
        same three over columns for dK/dV (``q_schedule``, ...); sizes from
        :meth:`schedule_sizes`.
        """
        if self._kernel_tables is None:  # the hot path of every call: build the tuple once
            self._prepare_in_call()
        return self._kernel_tables

    def _prepare_in_call(self) -> None:
        """:meth:`prepare` for a call that met this layout unprepared (a layout made
        neither by ``compile_layout`` nor by :meth:`to`), saying so under
        ``torch.compile``."""
        warn_if_compiling("a layout's kernel tables")
        self.prepare()

    _KERNEL_TABLES = ("full_kv_offsets", "full_kv_flat", "partial_kv_offsets",
                      "partial_kv_flat", "partial_kv_codes", "full_q_offsets", "full_q_flat",
                      "partial_q_offsets", "partial_q_flat", "partial_q_codes", "kv_schedule",
                      "kv_split_slots", "kv_split_rows", "q_schedule", "q_split_slots",
                      "q_split_rows")

    @_eager_under_compile
    def prepare(self) -> "Layout":
        """Build what calls read: :meth:`kernel_tables` on ``self.device``,
        :meth:`kernel_meta`, and the key lists :meth:`padding_limits` searches. Returns
        ``self``. :func:`~sparseflash.compile_layout` and :meth:`to` do this already; a
        layout made another way is prepared by its first call.

        It runs eagerly under ``torch.compile`` (``torch.compiler.disable``). Traced, the
        build's data-dependent CPU work would split the caller's graph into about twenty,
        and its device copies would be outputs of a compiled graph, which under
        ``mode="reduce-overhead"`` live in CUDA-graph memory that later replays overwrite.
        A compiled function that meets an unprepared layout breaks its graph here, and
        the compiled code keeps that split (the frames compiled around the break do not
        see the tables appear): prepare a layout before compiling what calls it.
        """
        if self._kernel_tables is None:
            self._kernel_tables = tuple(self._build(n) for n in self._KERNEL_TABLES)
        if self._kernel_meta is None:  # derived on the CPU
            self._kernel_meta = (
                self.block, self.num_heads, self.num_q_blocks, self.num_kv_blocks,
                *self.schedule_sizes("kv"), *self.schedule_sizes("q"),
                self.mean_blocks("kv"), self.mean_blocks("q"), int(self.columns_are_runs()),
                int(self.rows_are_runs()), self._partial_kind(),
                self.longest_stretch("kv"), self.uniform_blocks("q"),
                self.uniform_blocks("kv"))
        if self._row_keys is None:  # device copies for padding_limits
            rows = self.num_heads * self.num_q_blocks
            self._row_keys = (self.full_keys.to(self.device), self.partial_keys.to(self.device),
                              torch.arange(rows, device=self.device) * self.num_kv_blocks)
        return self

    def padding_limits(self, key_padding_mask: torch.Tensor) -> torch.Tensor:
        """Where the kernels' walks stop for each sequence of a padded batch: int32
        ``(B, 2 + 2 * H * nq)`` on this layout's device, for ``key_padding_mask (B, Nk)``
        bool (True = padding).

        Column 0 is ``kv_end``: the key blocks up to and including the last one with a real
        key (0 for a sequence that is all padding). Every block after it is padding, so no
        kernel visits it. Columns ``1 + 2r`` and ``2 + 2r`` are where row ``r``'s walks
        over ``full_kv_flat`` and ``partial_kv_flat`` stop: at the first listed block at or
        past ``kv_end``. Rows list their blocks in ascending order, so that is a binary
        search of the sorted keys ``r * nk + j`` for ``r * nk + kv_end``. The last
        column is the sequence's first padding key (``Nk`` if none): the Gluon forwards
        mask only the key tiles that reach it.

        Trailing padding (the usual kind) then costs nothing; padding elsewhere is
        masked per element and still computed.
        """
        if self._row_keys is None:
            self._prepare_in_call()
        full_keys, partial_keys, row_starts = self._row_keys
        B, Nk = key_padding_mask.shape
        positions = torch.arange(1, Nk + 1, device=key_padding_mask.device)
        real_keys_end = (positions * ~key_padding_mask).amax(1)      # (B,) 0 = all padding
        kv_end = (real_keys_end + self.block - 1).div(self.block, rounding_mode="floor")
        query = row_starts[None, :] + kv_end[:, None]                # (B, rows)
        cuts = torch.stack((torch.searchsorted(full_keys, query),
                            torch.searchsorted(partial_keys, query)), -1).flatten(1)
        first_padding = torch.where(key_padding_mask, positions - 1, Nk).amin(1)
        return torch.cat((kv_end[:, None], cuts, first_padding[:, None]), 1).to(torch.int32)

    def _padded(self, counts: torch.Tensor, offsets: torch.Tensor, flat: torch.Tensor):
        """CSR (CPU tensors) -> ``(H, rows per head, max count)`` int32, 0-padded."""
        counts = counts.long().flatten()
        width = int(counts.max()) if counts.numel() else 0
        out = torch.zeros(counts.numel(), width, dtype=torch.int32)
        row = torch.repeat_interleave(torch.arange(counts.numel()), counts)
        pos = torch.arange(row.numel()) - offsets.long()[row]
        out[row, pos] = flat.int()
        # Explicit sizes: with width 0 a -1 would be ambiguous.
        return out.view(self.num_heads, counts.numel() // self.num_heads, width).to(self.device)

    def _merged(self, axis: str):
        keys = torch.sort(torch.cat([self.full_keys, self.partial_keys])).values
        h, nq, nk = self.shape
        rows = h * nq if axis == "kv" else h * nk
        counts, offsets, flat, _ = _csr(keys, rows, nq, nk, axis == "q")
        return counts.view(h, -1).to(torch.int32), offsets, flat

    @property
    def kv_num_blocks(self) -> torch.Tensor:
        """int32 ``(H, nq)``: on key blocks per query-block row (full + partial)."""
        return self._merged("kv")[0].to(self.device)

    @property
    def kv_indices(self) -> torch.Tensor:
        """int32 ``(H, nq, max)``: the on key blocks of each row, ascending, 0-padded."""
        return self._padded(*self._merged("kv"))

    @property
    def q_num_blocks(self) -> torch.Tensor:
        """int32 ``(H, nk)``: on query blocks per key-block column (full + partial)."""
        return self._merged("q")[0].to(self.device)

    @property
    def q_indices(self) -> torch.Tensor:
        """int32 ``(H, nk, max)``: the on query blocks of each column, ascending, 0-padded."""
        return self._padded(*self._merged("q"))

    def __getattr__(self, name: str):
        # full_/partial_ x kv/q x num_blocks/indices, built on first use.
        for kind in ("full", "partial"):
            for axis in ("kv", "q"):
                if name == f"{kind}_{axis}_num_blocks":
                    return self._build(name)
                if name == f"{kind}_{axis}_indices":
                    return self._padded(self._build(f"{kind}_{axis}_num_blocks", cpu=True),
                                        self._build(f"{kind}_{axis}_offsets", cpu=True),
                                        self._build(f"{kind}_{axis}_flat", cpu=True))
        raise AttributeError(f"'Layout' object has no attribute '{name}'")

    # -- pictures --------------------------------------------------------------------------
    def __repr__(self) -> str:
        what = f"pattern={self.pattern!r}, " if self.pattern else ""
        return (f"Layout({what}seq_len={self.seq_len}, kv_seq_len={self.kv_seq_len}, "
                f"block={self.block}, shape={self.shape}, nnz={self.nnz}, "
                f"density={self.density:.2%})")

    def __str__(self) -> str:
        from .render import ascii_picture
        return ascii_picture(self)

    def save_png(self, path, *, head: Optional[int] = None) -> None:
        """Draw the block mask to a PNG (needs matplotlib: ``pip install sparseflash[viz]``)."""
        from .render import save_png
        save_png(self, path, head=head)
