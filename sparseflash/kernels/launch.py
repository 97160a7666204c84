"""Launchers: tensors in, tensors out. They pick tiles (autotuned on a GPU, a fixed small
tile under the Triton interpreter), compute grids, and pass strides, so the kernels accept
non-contiguous inputs.

Autotuning is keyed on what changes the best tile (head dim and whether it fills its tile,
dtype, layout block, padding, dropout, TMA loads, whether the layout has partial blocks or
only consecutive rows, how many table indices a forward program holds in registers (see
:func:`index_regs`), and a capped class of the mean row length: see
:func:`length_class`), never on the sequence length itself; ``N`` and ``Nk``
are not specialised either, so a new length reuses the compiled kernel.

What a launcher decides from the shapes (which kernel, its grid, integer arguments and
constexprs) it decides once per set of shapes and keeps as a launch plan
(:class:`_ForwardPlan`, :class:`_BackwardPlan`): a short call spent more host time
deciding than launching (benchmarks/NOTES.md, v20).
"""

from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass
from typing import Optional, Sequence

import torch
import triton

from ..layout.layout import PARTIAL_ANTICAUSAL
from ..reference import keep_threshold
from . import hopper, hopper_backward, hopper_fused
from .backward import attention_dkdv_kernel, attention_dq_kernel, sum_split_rows_kernel
from .common import pdl_launch
from .fastlaunch import Kernel, Launch, device_major, interpreting
from .forward import attention_forward_kernel, merge_split_rows_kernel


def _candidate_configs(kind: str):
    if interpreting():
        # The interpreter runs numpy per tile: the biggest tile that fits is the fastest.
        return [triton.Config({"BLOCK_M": t, "BLOCK_N": t}, num_warps=4, num_stages=1)
                for t in (64, 32, 16)]
    shapes = {
        "fwd": [(128, 64, 4, 3), (128, 64, 8, 3), (128, 128, 8, 3), (128, 128, 8, 2),
                (128, 64, 4, 4), (128, 32, 4, 3),
                (64, 64, 4, 3), (64, 64, 4, 2), (64, 32, 4, 2), (32, 32, 4, 2), (16, 16, 4, 2)],
        # (BLOCK_M, BLOCK_N, warps, stages). Deeper-pipelined backward tiles (4-5 stages)
        # slowed short sparse rows at D=64 by a third when tuned on dense (v4,
        # benchmarks/NOTES.md), and offered to rows of 16 or more blocks only they gained
        # nothing on dense or causal (v20): three stages it is.
        "dkdv": [(64, 128, 8, 3), (32, 128, 4, 3), (64, 64, 4, 3), (32, 64, 4, 3),
                 (64, 64, 4, 2), (32, 64, 4, 2), (32, 32, 4, 2), (16, 16, 4, 2)],
        "dq": [(128, 64, 8, 3), (64, 64, 4, 3), (128, 32, 4, 3), (64, 32, 4, 3),
               (64, 64, 4, 2), (64, 32, 4, 2), (32, 32, 4, 2), (16, 16, 4, 2)],
    }[kind]
    return [triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_warps=w, num_stages=s)
            for m, n, w, s in shapes]


#: Shared memory a config may plan for (H100/H200 allow 227 KB per block; Triton needs
#: some beyond the tiles for layout conversions).
_SMEM_BUDGET = 160 * 1024


def _smem_estimate(kind: str, cfg, block_d: int, elem: int = 2) -> int:
    """Bytes of the tiles a program keeps resident plus those its pipeline stages stream."""
    m, n, stages = cfg.kwargs["BLOCK_M"], cfg.kwargs["BLOCK_N"], cfg.num_stages
    if kind == "dkdv":   # k, v resident; q, dO streamed
        return (2 * n * block_d + stages * 2 * m * block_d) * elem
    if kind == "dq":     # q, dO resident; k, v streamed
        return (2 * m * block_d + stages * 2 * n * block_d) * elem
    return (m * block_d + stages * 2 * n * block_d) * elem  # fwd: q resident; k, v streamed


def _prune(kind: str, configs, named_args, **kwargs):
    """Tiles must divide the layout block, and their buffers must fit in shared memory.
    Tiles with both sides under min(64, layout block) are left out where a wider one fits:
    at block 128 the 32x32 and 16x16 tiles took 2.3-8.8x the best tile's time in every
    one of the 26 keys the autotuner timed on an H200 (D=64 and 128;
    benchmarks/NOTES.md, v15), and each candidate costs cold-start time.
    Under the interpreter, or with SPARSEFLASH_NO_AUTOTUNE=1 (quick starts, sanitizer
    runs), keep only the first fitting tile."""
    args = {**named_args, **kwargs}
    layout_block, block_d = args["LAYOUT_BLOCK"], args["BLOCK_D"]
    fitting = [c for c in configs
               if c.kwargs["BLOCK_M"] <= layout_block and c.kwargs["BLOCK_N"] <= layout_block
               and (interpreting() or _smem_estimate(kind, c, block_d) <= _SMEM_BUDGET)]
    if interpreting():
        return fitting[:1]
    if os.environ.get("SPARSEFLASH_NO_AUTOTUNE", "0") == "1":
        # No benchmarking to skip a config that does not compile: take one well inside
        # the budget (Triton needs shared memory beyond the tiles for conversions).
        safe = [c for c in fitting if _smem_estimate(kind, c, block_d) <= _SMEM_BUDGET * 0.6]
        return (safe or fitting)[:1]
    widest = min(64, layout_block)
    wide = [c for c in fitting if max(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"]) >= widest]
    return wide or fitting


LOG2E = 1.4426950408889634  # scores are scaled by scale * log2(e) for exp2


def head_dim_tile(D: int) -> int:
    """BLOCK_D: the head dim rounded up to a power of two, at least 16 (tl.dot's minimum).
    The kernels' ``EVEN_D`` is ``head_dim_tile(D) == D``."""
    return max(16, 1 << (D - 1).bit_length())  # (triton.next_power_of_2 costs more per call)


# HAS_PARTIAL and ROW_RUNS leave whole loops out, which changes the best tile: keyed
# without them, causal (dense's length class) ran the tile tuned for dense's kernel, which
# has no partial walk, and its dQ was 34% slower at D=64 (benchmarks/NOTES.md, v14).
_KEY = ["BLOCK_D", "LAYOUT_BLOCK", "HAS_PADDING", "HAS_DROPOUT", "PRECISION", "LENGTH_CLASS",
        "EVEN_D", "HAS_PARTIAL"]
_KEY_DKDV = _KEY + ["SCHEDULED", "COLUMN_RUNS"]
_KEY_DQ = _KEY + ["ROW_RUNS"]
_KEY_FWD = _KEY + ["USE_TMA", "ROW_RUNS", "INDEX_REGS"]


def _tuned(kernel, kind: str) -> Kernel:
    """``kernel`` autotuned over :func:`_candidate_configs` (``kind``: fwd, dkdv, dq) on the
    first launch of each key, launched past the autotuner and Triton's argument binding
    after that (:class:`~sparseflash.kernels.fastlaunch.Kernel`)."""
    key = {"fwd": _KEY_FWD, "dkdv": _KEY_DKDV, "dq": _KEY_DQ}[kind]
    return Kernel(kernel, _candidate_configs(kind), key, functools.partial(_prune, kind))


def length_class(mean_blocks: int) -> int:
    """Autotune class of a layout's mean blocks per row (or column): 0, 1, 2-3, 4-7,
    8-15, and 16 or more. A loop of a few blocks wants other tiles than a long one (a deep
    pipeline never fills on a 7-block row: benchmarks/NOTES.md, v4); capping the classes
    keeps sequence length out of the key, so a dense layout re-tunes at most once as N
    grows and a banded one never does."""
    return min(max(int(mean_blocks), 0).bit_length(), 5)


_forward = _tuned(attention_forward_kernel, "fwd")
_dkdv = _tuned(attention_dkdv_kernel, "dkdv")
_dq = _tuned(attention_dq_kernel, "dq")
_merge = Kernel(merge_split_rows_kernel)
#: Rows per program of the merge and split-sum kernels: a split row's block in 8 programs
#: (at block 128), each a few registers a thread, for the pipelined chunk loads to run in
#: parallel across SMs.
SPLIT_TILE_ROWS = 16
_sum_split = Kernel(sum_split_rows_kernel)


@dataclass(frozen=True)
class LayoutMeta:
    """The integers a kernel needs about the layout besides its tables."""
    block: int
    heads: int          # 1 (broadcast) or Hq
    num_q_blocks: int
    num_kv_blocks: int
    kv_programs: int    # entries of the forward schedule (Layout.schedule_sizes("kv"))
    kv_slots: int       # chunks of split rows, each a workspace slot
    kv_split_rows: int  # rows split across programs
    q_programs: int     # the same three for the dK/dV column schedule
    q_slots: int
    q_split_rows: int
    row_blocks: int     # mean blocks per row, rounded down (Layout.mean_blocks("kv"))
    col_blocks: int     # mean blocks per column (Layout.mean_blocks("q"))
    column_runs: int    # 1: every column's blocks are consecutive (Layout.columns_are_runs)
    row_runs: int       # 1: every row's blocks are consecutive (Layout.rows_are_runs)
    has_partial: int    # 1: some block has an element mask (causal diagonal, ragged end);
                        # PARTIAL_ANTICAUSAL (2): and some of those are anti-causal
    row_stretch: int    # most full blocks one forward program walks (longest_stretch)
    col_uniform: int    # blocks of every column if all have as many, none split, else 0
    row_uniform: int    # the same of the rows (Layout.uniform_blocks)

    @classmethod
    def of(cls, layout) -> "LayoutMeta":
        return cls(*layout.kernel_meta())

    @property
    def anticausal(self) -> bool:
        """Whether some partial block is anti-causal: the Gluon kernels then compile that
        mask's second compare (``hopper.partial_select``)."""
        return self.has_partial == PARTIAL_ANTICAUSAL


#: The longest table stretch a program holds in registers (``INDEX_REGS``, see
#: ``kernels.common.listed_stretch``). Picking an index out of the vector is a masked sum,
#: a few shuffles within a warp while the vector is no wider than a warp's 32 lanes.
MAX_INDEX_REGS = 32


def index_regs(stretch: int) -> int:
    """``INDEX_REGS`` for walks of at most ``stretch`` listed blocks: 16 or 32 lanes (two
    sizes, so that few kernels are compiled), or 0 (read the table in the loop) for longer
    ones or with ``SPARSEFLASH_INDEX_REGS=0``."""
    if stretch > MAX_INDEX_REGS or os.environ.get("SPARSEFLASH_INDEX_REGS", "1") == "0":
        return 0
    return 16 if stretch <= 16 else MAX_INDEX_REGS


def _precision(dtype: torch.dtype) -> str:
    # float32 inputs get true float32 products (like torch.matmul's default), not tf32.
    if dtype == torch.float32:
        return "ieee"
    if dtype == torch.bfloat16 and interpreting():
        return "upcast"  # see kernels.common.mma
    return "tf32"


#: Row-length class (:func:`length_class`) from which the forward loads K and V through
#: tensor descriptors by default: rows of 16 or more blocks.
TMA_ROW_CLASS = 5


def _use_tma(row_class: int, *tensors: torch.Tensor) -> bool:
    """Whether the forward loads K and V through tensor descriptors (the copy engine of
    Hopper and later GPUs). Each program builds its descriptors before its first tile, a
    fixed cost that long rows amortise and short ones do not: on an H200 with Triton 3.6
    (benchmarks/NOTES.md, v12) descriptors made the forward 4-6% faster on dense and
    causal rows at D=128 (the same at D=64) and 4-9% slower on rows of 7-8 blocks. So by
    default they are used for rows of ``TMA_ROW_CLASS`` or longer, on such a GPU.
    ``SPARSEFLASH_TMA=0`` turns them off, ``=1`` on for every row, also under the Triton
    interpreter (which emulates descriptors: how the CPU tests cover the path). Either way
    only for tensors with unit stride along D and their base and other strides 16-byte
    aligned, what a descriptor requires."""
    setting = os.environ.get("SPARSEFLASH_TMA", "auto")
    if setting == "0" or (setting != "1" and row_class < TMA_ROW_CLASS):
        return False
    device = tensors[0].device
    if setting != "1" and interpreting():
        return False
    if not interpreting() and (device.type != "cuda"
                               or device_major(device.index) < 9):
        return False
    for t in tensors:
        size = t.element_size()
        if (t.stride(-1) != 1 or t.data_ptr() % 16
                or any(st * size % 16 for st in t.stride()[:-1])):
            return False
    return True


def _device_allocator(size: int, alignment: int, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


def _ensure_allocator() -> None:
    """Descriptors made inside a kernel need a little global scratch per program, which
    Triton allocates through ``triton.set_allocator``. Install a torch one unless the
    caller has set their own. The setting is per thread (a ContextVar), and autograd runs
    the backward on its own threads, so this is checked before every launch that needs it."""
    try:
        from triton.runtime._allocation import NullAllocator, _allocator
        current = _allocator.get()
    except (ImportError, AttributeError):  # another Triton: set ours
        triton.set_allocator(_device_allocator)
        return
    if isinstance(current, NullAllocator):
        triton.set_allocator(_device_allocator)


def _placeholder(tables) -> torch.Tensor:
    """A never-read pointer for the kernels' padding and seed arguments when a call has
    neither: the layout's row offsets (int32, never empty). Not a tensor cached here: one
    made by a first call inside the warm-up of torch.compile's CUDA graphs would be memory
    of the graphs' pool that no graph output accounts for."""
    return tables[0]


def _padding_args(key_padding: Optional[torch.Tensor], kv_limits: Optional[torch.Tensor],
                  tables):
    if key_padding is None:
        return _placeholder(tables), _placeholder(tables), 0, 0, False
    return key_padding, kv_limits, key_padding.stride(0), kv_limits.stride(0), True


def _seed_pointer(seed: Optional[torch.Tensor], dropout_p: float, tables) -> torch.Tensor:
    """What the kernels' ``SEED`` pointer gets: with dropout the (1,) int64 seed on the
    inputs' device, which they read there (a CUDA graph then replays with the seed its
    captured draw makes anew); without, :func:`_placeholder`."""
    return seed if dropout_p > 0 else _placeholder(tables)


def _on_tensors_device(launcher):
    """Run ``launcher`` with its first tensor's GPU as the current CUDA device: Triton
    launches on the current device, so tensors on ``cuda:1`` while ``cuda:0`` is current
    would otherwise reach a kernel on the wrong GPU. Costs nothing when they agree."""
    @functools.wraps(launcher)
    def wrapper(first: torch.Tensor, *args, **kwargs):
        device = first.device
        switch = device.type == "cuda" and device.index != torch.cuda.current_device()
        with torch.cuda.device(device) if switch else contextlib.nullcontext():
            return launcher(first, *args, **kwargs)
    return wrapper


def _settings() -> tuple:
    """The settings the launchers' choices read (``hopper.gluon_choice``,
    ``hopper_pingpong.choice``, ``hopper_fused.choice``, :func:`_use_tma`,
    :func:`index_regs`, and whether PyTorch asks for deterministic algorithms): part of
    every plan's key, so that a changed setting takes effect on the next call."""
    get = os.environ.get
    return (get("SPARSEFLASH_GLUON"), get("SPARSEFLASH_TMA"), get("SPARSEFLASH_INDEX_REGS"),
            get("SPARSEFLASH_FUSED_BACKWARD"), get("SPARSEFLASH_PINGPONG"),
            torch.are_deterministic_algorithms_enabled())


def _aligned(*tensors: torch.Tensor) -> bool:
    """Whether every tensor's address is 16-byte aligned (descriptors and the Gluon kernels
    need it)."""
    address = 0
    for t in tensors:
        address |= t.data_ptr()
    return not address & 15


#: Launch plans by key (see :class:`_ForwardPlan`); bounded, as every sequence length adds
#: one.
_PLANS: dict = {}
_MAX_PLANS = 256


def clear_plans() -> None:
    """Forget every launch plan. A plan binds the kernels and choices of the moment it
    was made: code that swaps a launcher's kernel or decision function (tests do) calls
    this, so that the next call plans with the new one."""
    _PLANS.clear()


def _planned(key: tuple, build):
    """The plan kept under ``key``, or ``build()`` kept under it."""
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        plan = _PLANS[key] = build()
    return plan


@dataclass(frozen=True)
class _ForwardPlan:
    """What :func:`forward` decides once per set of shapes: which kernel runs, bound to its
    grid, integers and constexprs (:class:`~sparseflash.kernels.fastlaunch.Launch`), and
    the merge of split rows. Deciding and binding took more host time than the launch
    itself (benchmarks/NOTES.md, v20). Its key holds everything these depend on: the layout's
    integers (``meta``, by identity: the plan keeps it alive), the shapes and strides of
    the inputs (the outputs are allocated like them), dtype, device, padding and its
    strides, whether there is dropout, the inputs' alignment, the split-row table's width
    and the environment settings."""
    meta: LayoutMeta
    main: Launch
    gluon: bool                  # main is hopper's forward (else the Triton forward)
    use_tma: bool                # the Triton forward builds descriptors in the kernel
    merge: Optional[Launch]      # merge_split_rows_kernel, where rows are split
    workspace: Optional[tuple]   # (groups, slots, block, D) float32, where rows are split
    chunked: bool                # the merge takes the persistent kernel's chunked rows


def _bind_merge(o: torch.Tensor, meta: LayoutMeta, split_rows: int, groups: int,
                num_slots: int, split_width: int, group0: int = 0,
                chunked: bool = False) -> Launch:
    """merge_split_rows_kernel bound for ``split_rows`` split rows of at most
    ``split_width`` chunks in ``num_slots`` workspace slots a group, for ``groups``
    (batch, head repeat) groups from ``group0`` on; ``chunked``: the persistent forward's
    chunked rows (``split_rows`` schedule entries of ``split_width`` chunks, slots in
    order). One launch for every split row: the merge is a handful of microseconds of GPU
    work, and a chain of small torch ops would cost more in launches than the split
    saves."""
    B, H, N, D = o.shape
    block_m = min(meta.block, SPLIT_TILE_ROWS)
    return _merge.bind(
        (split_rows, groups, meta.block // block_m), (),
        (*o.stride(), H, N, D, meta.num_q_blocks, meta.heads, num_slots, split_width, group0),
        LAYOUT_BLOCK=meta.block, BLOCK_M=block_m, BLOCK_D=head_dim_tile(D), CHUNKED=chunked)


def _forward_plan(q, k, v, o, meta: LayoutMeta, has_padding: bool, s_kpm: int, s_lim: int,
                  dropout_p: float, split_width: int) -> _ForwardPlan:
    B, H, N, D = q.shape
    H_kv, Nk = k.shape[1], k.shape[2]
    groups = B * (H // meta.heads)  # grid axis 1: (batch, head repeat) per layout head
    merge = workspace = None
    if meta.kv_slots:
        workspace = (groups, meta.kv_slots, meta.block, D)
        merge = _bind_merge(o, meta, meta.kv_split_rows, groups, meta.kv_slots, split_width)
    if hopper.usable(q, k, v, meta.block, dropout_p, has_padding,  # sm_90
                     bool(meta.has_partial)):
        # Rows all as long (and none split) on a broadcast layout, as the backward's fill
        # takes them: either Gluon forward may chunk the last groups' rows to fill its
        # last wave.
        main = hopper.bind_forward(q, k, o, meta.kv_programs, groups, meta.num_q_blocks,
                                   meta.heads, meta.kv_slots, meta.block, bool(meta.row_runs),
                                   bool(meta.has_partial), has_padding, s_kpm, s_lim,
                                   dropout_p > 0, meta.row_blocks,
                                   meta.row_uniform if meta.heads == 1 else 0,
                                   anticausal=meta.anticausal)
        fill_from, chunks = main.fill
        if chunks > 1:  # a slot a chunk of every row of the groups from fill_from on
            workspace = (groups - fill_from, meta.kv_programs * chunks, meta.block, D)
            merge = _bind_merge(o, meta, meta.kv_programs, groups - fill_from,
                                meta.kv_programs * chunks, chunks, fill_from, chunked=True)
        return _ForwardPlan(meta, main, True, False, merge, workspace, chunks > 1)
    block_d = head_dim_tile(D)
    row_class = length_class(meta.row_blocks)
    use_tma = _use_tma(row_class, k, v)
    main = _forward.bind(
        lambda cfg: (meta.kv_programs * (meta.block // cfg["BLOCK_M"]), groups),
        (q.dtype, row_class),
        (*q.stride(), *k.stride(), *v.stride(), *o.stride(), s_kpm, s_lim,
         H, N, Nk, D, meta.num_q_blocks, meta.heads, H // H_kv, meta.kv_slots, row_class),
        LAYOUT_BLOCK=meta.block, BLOCK_D=block_d, HAS_PADDING=has_padding,
        HAS_DROPOUT=dropout_p > 0, PRECISION=_precision(q.dtype), EVEN_D=block_d == D,
        USE_TMA=use_tma, ROW_RUNS=bool(meta.row_runs), HAS_PARTIAL=bool(meta.has_partial),
        HAS_SPLITS=meta.kv_slots > 0,
        INDEX_REGS=0 if meta.row_runs else index_regs(meta.row_stretch))
    return _ForwardPlan(meta, main, False, use_tma, merge, workspace, False)


@_on_tensors_device
def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, tables: Sequence[torch.Tensor],
            meta: LayoutMeta, scale: float, key_padding: Optional[torch.Tensor],
            kv_limits: Optional[torch.Tensor], seed: Optional[torch.Tensor],
            dropout_p: float):
    """q (B, H, N, D), k/v (B, Hkv, Nk, D) -> (o (B, H, N, D), lse2 (B, H, N) float32).

    ``lse2`` is the base-2 log-sum-exp of the scaled scores (natural lse * log2(e)), the
    form :func:`backward` reads; multiply by ln(2) for the natural one.

    ``key_padding`` is int8 (B, Nk), 1 = ignore; ``kv_limits`` int32 (B, 1 + 2 * rows) says
    where each sequence's walks stop (``Layout.padding_limits``): key blocks after its last
    real key are skipped. With ``dropout_p > 0``, ``seed`` is the (1,) int64 Philox seed
    on q's device."""
    if scale <= 0:
        # The kernel folds the scale into the softmax shift, which needs scale > 0 (and a
        # masked -inf times 0 would be NaN): q k^T * scale = (-q) k^T * |scale|, and a zero
        # scale gives the same all-zero scores as zero queries. The backward reads the
        # caller's q and scale, which give the same probabilities.
        q, scale = (-q, -scale) if scale < 0 else (torch.zeros_like(q), 1.0)
    B, H, N, D = q.shape
    o = torch.empty_like(q)
    lse = torch.empty(B, H, N, dtype=torch.float32, device=q.device)
    kpm, limits, s_kpm, s_lim, has_padding = _padding_args(key_padding, kv_limits, tables)
    dropout_p = float(dropout_p)
    split_width = tables[11].shape[1]
    plan = _planned(
        (id(meta), q.shape, q.stride(), k.shape, k.stride(), v.stride(), q.dtype, q.device,
         has_padding, s_kpm, s_lim, dropout_p > 0, _aligned(q, k, v), split_width,
         _settings()),
        lambda: _forward_plan(q, k, v, o, meta, has_padding, s_kpm, s_lim, dropout_p,
                              split_width))
    if plan.workspace is not None:
        ws_o = torch.empty(plan.workspace, dtype=torch.float32, device=q.device)
        ws_lse = torch.empty(plan.workspace[:3], dtype=torch.float32, device=q.device)
    else:
        ws_o = ws_lse = lse  # never touched: no row is split
    if plan.gluon:
        hopper.forward(plan.main, q, k, v, o, lse, tables[1], tables[3], tables[4], tables[10],
                       ws_o, ws_lse, kpm, limits, scale * LOG2E,
                       seed if dropout_p > 0 else None, keep_threshold(dropout_p),
                       1.0 / (1.0 - dropout_p))
    else:
        if plan.use_tma:
            _ensure_allocator()
        plan.main((q, k, v, o, lse, *tables[:5], tables[10], ws_o, ws_lse, kpm, limits,
                   _seed_pointer(seed, dropout_p, tables)),
                  (scale * LOG2E, dropout_p, keep_threshold(dropout_p)))
    if plan.merge is not None:
        # Combine the chunks of the split rows the forward left in the workspace (chunked
        # rows: the merge reads the row schedule's rows, their slots are in order).
        plan.merge((ws_o, ws_lse, tables[11], tables[10] if plan.chunked else tables[12], o,
                    lse), ())
    return o, lse


def _bind_split_sum(grad: torch.Tensor, heads: int, length: int, num_rows: int,
                    layout_heads: int, num_slots: int, split_rows: int, split_width: int,
                    groups: int, block: int, pair: bool = False, pdl: bool = False,
                    group0: int = 0, chunked: bool = False) -> Launch:
    """The launch that sums the chunks' partial gradients in a workspace ``(groups,
    num_slots, block, D)`` into the split rows (or columns) of ``grad (B, heads, length,
    D)``: one launch for all of them; with ``pair`` for a second workspace and gradient
    too, strided as ``grad`` (dV beside dK). Its tensors: (workspace, split slots, split
    rows, grad, second workspace, second grad), the second pair repeating the first
    where there is none. ``pdl``: launched by programmatic dependent launch, after a grid
    that lets it (``common.let_next_grid_launch``). ``chunked``: the fused backward's
    chunked columns instead (``split_rows`` schedule entries of ``split_width`` chunks
    each, for the ``groups`` groups from ``group0`` on; its tensors then name the column
    schedule where the split rows were)."""
    tile = min(block, SPLIT_TILE_ROWS)
    D = grad.shape[-1]
    return _sum_split.bind(
        (split_rows, groups, (block // tile) * (2 if pair else 1)), (),
        (*grad.stride(), heads, length, D, num_rows, layout_heads, num_slots, split_width,
         group0), LAYOUT_BLOCK=block, BLOCK_M=tile, BLOCK_D=head_dim_tile(D), PAIR=pair,
        CHUNKED=chunked, **pdl_launch(pdl))


@dataclass(frozen=True)
class _BackwardPlan:
    """What :func:`backward` decides once per set of shapes (see :class:`_ForwardPlan`)."""
    meta: LayoutMeta
    dq: Optional[Launch]            # None where the fused backward runs
    dkdv: Optional[Launch]
    gluon_dkdv: bool                # dkdv is hopper_backward's kernel (else Triton's)
    sum_dq: Optional[Launch]        # adds split rows' partial dQ, where rows are split
    sum_dkdv: tuple                 # the same for split columns' dK and dV: one launch
                                    # for both (PAIR), or one each, or none
    chunked: bool                   # sum_dkdv adds the fused kernel's chunked columns
    dq_workspace: Optional[tuple]   # (groups, slots, block, D) float32
    dkdv_workspace: Optional[tuple]
    fused: Optional[tuple] = None   # hopper_fused's (delta, kernel) launches, in place of
                                    # dq and dkdv


def _backward_plan(q, k, v, do, o, dq, dk, dv, meta: LayoutMeta, has_padding: bool,
                   s_kpm: int, s_lim: int, dropout_p: float, row_split_width: int,
                   col_split_width: int) -> _BackwardPlan:
    B, H, N, D = q.shape
    H_kv, Nk = k.shape[1], k.shape[2]
    # Scheduled dK/dV needs every query head of a GQA group to read one column: a broadcast
    # layout, or no grouping (see attention_dkdv_kernel).
    scheduled = meta.heads == 1 or H == H_kv
    sched_heads = 1 if meta.heads == 1 else H_kv
    kv_groups = B * (H_kv // sched_heads)
    use_fused = hopper_fused.usable(q, k, v, do, meta.block, dropout_p, has_padding, scheduled)
    # The fused kernel may take the last groups' columns in chunks to fill its last wave
    # (where no column is split already, on a broadcast layout).
    fill_from, chunks = kv_groups, 1
    if use_fused and sched_heads == 1 and not meta.q_slots:
        fill_from, chunks = hopper_fused.fill_plan(q, meta.q_programs, kv_groups, meta.block,
                                                   meta.col_uniform, bool(meta.has_partial),
                                                   dropout_p > 0)
    chunked = chunks > 1
    sum_dkdv, dkdv_workspace = (), None
    if scheduled and (meta.q_slots or chunked):
        # Chunked: a slot a chunk of every column of the groups from fill_from on.
        slots, split_rows, width, groups, group0 = (
            (meta.q_programs * chunks, meta.q_programs, chunks, kv_groups - fill_from,
             fill_from) if chunked else
            (meta.q_slots, meta.q_split_rows, col_split_width, kv_groups, 0))
        dkdv_workspace = (groups, slots, meta.block, D)
        pair = dk.stride() == dv.stride() and dk.shape == dv.shape
        sum_dkdv = tuple(
            _bind_split_sum(grad, H_kv, Nk, meta.num_kv_blocks, sched_heads, slots,
                            split_rows, width, groups, meta.block, pair=pair,
                            pdl=use_fused and hopper_fused.PDL, group0=group0,
                            chunked=chunked)
            for grad in ((dk,) if pair else (dk, dv)))
    if use_fused:
        fused = hopper_fused.bind(q, k, o, do, meta.q_programs, kv_groups, meta.num_kv_blocks,
                                  sched_heads, meta.q_slots, meta.block,
                                  bool(meta.has_partial), has_padding, s_kpm, s_lim,
                                  dropout_p > 0, (fill_from, chunks),
                                  anticausal=meta.anticausal)
        return _BackwardPlan(meta, None, None, False, None, sum_dkdv, chunked, None,
                             dkdv_workspace, fused)
    block_d = head_dim_tile(D)
    common = dict(LAYOUT_BLOCK=meta.block, BLOCK_D=block_d,
                  HAS_PADDING=has_padding, HAS_DROPOUT=dropout_p > 0,
                  PRECISION=_precision(q.dtype), EVEN_D=block_d == D)
    groups = B * (H // meta.heads)
    row_class = length_class(meta.row_blocks)
    dq_launch = _dq.bind(
        lambda cfg: (meta.kv_programs * (meta.block // cfg["BLOCK_M"]), groups),
        (q.dtype, row_class),
        (*q.stride(), *k.stride(), *v.stride(), *do.stride(), *o.stride(), *dq.stride(),
         s_kpm, s_lim, H, N, Nk, D, meta.num_q_blocks, meta.heads, H // H_kv, meta.kv_slots,
         row_class), HAS_SPLITS=meta.kv_slots > 0, ROW_RUNS=bool(meta.row_runs),
        # Without its (empty) partial walk the dQ kernel measured 6-9% faster at D=64 and
        # no faster at D=128, where the dense one was 3.5% slower in three calls (not
        # understood; benchmarks/NOTES.md, v14): above D=64 it keeps the walk.
        HAS_PARTIAL=bool(meta.has_partial) or block_d > 64, **common)
    sum_dq = dq_workspace = None
    if meta.kv_slots:
        dq_workspace = (groups, meta.kv_slots, meta.block, D)
        sum_dq = _bind_split_sum(dq, H, N, meta.num_q_blocks, meta.heads, meta.kv_slots,
                                 meta.kv_split_rows, row_split_width, groups, meta.block)

    if hopper_backward.usable(q, k, v, do, meta.block, dropout_p, has_padding, scheduled):
        dkdv = hopper_backward.bind_dkdv(q, k, meta.q_programs, kv_groups, meta.num_kv_blocks,
                                         sched_heads, meta.q_slots, meta.block,
                                         bool(meta.has_partial))
        return _BackwardPlan(meta, dq_launch, dkdv, True, sum_dq, sum_dkdv, False,
                             dq_workspace, dkdv_workspace)
    if scheduled:
        grid_dkdv = lambda cfg: (meta.q_programs * (meta.block // cfg["BLOCK_N"]),  # noqa: E731
                                 kv_groups)
    else:
        grid_dkdv = lambda cfg: (triton.cdiv(Nk, cfg["BLOCK_N"]), B * H_kv)  # noqa: E731
    col_class = length_class(meta.col_blocks)
    # Consecutive columns at computed offsets on transposed scores: the dK/dV kernel measured
    # 2-11% faster at D=64 and 2-14% slower at D=128; float32 keeps the forward's order
    # (benchmarks/NOTES.md, v12).
    column_runs = bool(meta.column_runs) and block_d <= 64 and q.dtype != torch.float32
    dkdv = _dkdv.bind(
        grid_dkdv, (q.dtype, col_class),
        (*q.stride(), *k.stride(), *v.stride(), *do.stride(), *dk.stride(), *dv.stride(),
         s_kpm, s_lim, H, H_kv, N, Nk, D, meta.num_kv_blocks, meta.heads, H // H_kv,
         sched_heads, meta.q_slots, col_class),
        SCHEDULED=scheduled, COLUMN_RUNS=column_runs,
        HAS_SPLITS=scheduled and meta.q_slots > 0, HAS_PARTIAL=bool(meta.has_partial),
        **common)
    return _BackwardPlan(meta, dq_launch, dkdv, False, sum_dq, sum_dkdv, False, dq_workspace,
                         dkdv_workspace)


@_on_tensors_device
def backward(do: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
             o: torch.Tensor, lse: torch.Tensor, tables: Sequence[torch.Tensor],
             meta: LayoutMeta, scale: float, key_padding: Optional[torch.Tensor],
             kv_limits: Optional[torch.Tensor], seed: Optional[torch.Tensor],
             dropout_p: float):
    """-> (dq, dk, dv) shaped like q, k, v. The dQ kernel runs first: it also computes
    ``delta = rowsum(dO * O)``, which the dK/dV kernel reads. Where
    ``hopper_fused.usable``, one warp-specialised kernel does both instead."""
    B, H, N, D = q.shape
    delta = torch.empty(B, H, N, dtype=torch.float32, device=q.device)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    kpm, limits, s_kpm, s_lim, has_padding = _padding_args(key_padding, kv_limits, tables)
    lse = lse.contiguous()
    dropout_p = float(dropout_p)
    widths = tables[11].shape[1], tables[14].shape[1]
    plan = _planned(
        (id(meta), q.shape, q.stride(), k.shape, k.stride(), v.stride(), do.stride(),
         o.stride(), q.dtype, q.device, has_padding, s_kpm, s_lim, dropout_p > 0,
         _aligned(q, k, v, do), widths, _settings()),
        lambda: _backward_plan(q, k, v, do, o, dq, dk, dv, meta, has_padding, s_kpm, s_lim,
                               dropout_p, *widths))
    # A workspace that is never touched is float32 like a real one all the same: a pointer
    # of another dtype would make Triton compile (and the autotuner tune) a second kernel.
    if plan.dkdv_workspace is not None:
        ws_dk, ws_dv = (torch.empty(plan.dkdv_workspace, dtype=torch.float32, device=q.device)
                        for _ in range(2))
    else:
        ws_dk = ws_dv = delta  # never touched
    seed = _seed_pointer(seed, dropout_p, tables)
    if plan.fused is not None:
        hopper_fused.backward(plan.fused, q, k, v, do, o, lse, delta, dq, dk, dv, tables[6],
                              tables[8], tables[9], tables[13], ws_dk, ws_dv, kpm, limits,
                              seed, scale * LOG2E, float(scale), keep_threshold(dropout_p),
                              1.0 / (1.0 - dropout_p))
    else:
        scalars = (scale * LOG2E, float(scale), dropout_p, keep_threshold(dropout_p))
        ws_dq = (torch.empty(plan.dq_workspace, dtype=torch.float32, device=q.device)
                 if plan.dq_workspace is not None else delta)
        plan.dq((q, k, v, do, o, lse, delta, dq, *tables[:5], tables[10], ws_dq, kpm, limits,
                 seed), scalars)
        if plan.sum_dq is not None:
            plan.sum_dq((ws_dq, tables[11], tables[12], dq, ws_dq, dq), ())
        if plan.gluon_dkdv:
            hopper_backward.dkdv(plan.dkdv, q, k, v, do, lse, delta, dk, dv, tables[6],
                                 tables[8], tables[9], tables[13], ws_dk, ws_dv, scale * LOG2E,
                                 float(scale))
        else:
            plan.dkdv((q, k, v, do, lse, delta, dk, dv, *tables[5:10], tables[13], ws_dk,
                       ws_dv, kpm, limits, seed), scalars)
    # Chunked columns: the sums read the column schedule's rows (their slots are in order).
    slots, rows = (tables[14], tables[13] if plan.chunked else tables[15])
    if len(plan.sum_dkdv) == 1:  # dK and dV in one launch
        plan.sum_dkdv[0]((ws_dk, slots, rows, dk, ws_dv, dv), ())
    else:  # one each, or none
        for sum_split, ws, grad in zip(plan.sum_dkdv, (ws_dk, ws_dv), (dk, dv)):
            sum_split((ws, slots, rows, grad, ws, grad), ())
    return dq, dk, dv
