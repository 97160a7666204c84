"""The D=64 forward on Hopper GPUs for short rows: ``hopper``'s kernel as persistent
programs that load their next row under the end of the current one.

A program of ``hopper.hopper_forward_kernel`` walking a row of three key tiles
(``local(1)`` at block 128) spends about a third of its time before its first scores and
after its last ``P V`` (the clock trace of NOTES v53): its Q and first K/V copies start
only once it starts, and its epilogue runs with no copy in flight. Here a grid of two
programs an SM takes the same work items (schedule entry's query tile, batch, head
repeat), program ``p`` the items ``p, p + P, p + 2P, ...``, and the K/V ring runs on
across them: once a row's last scores are done, Q's buffer and every K/V buffer but the
last tile's are free, so the next row's Q and first ``STAGES - 1`` K/V tiles are issued
there, before the row's last ``P V``, its normalisation and its store. The next row's
first scores then find their operands landed.

Its O store cannot go through Q's buffer (the next row's Q is loading there), so it takes
either the threads' pointer stores, or with ``O_IN_RING`` the V buffer of the row's last
tile (free once every warp group's last ``P V`` has read it) by one TMA store, which the
next row waits for before it refills that buffer.

Everything else (tables, masks, padding, split rows, outputs) is ``hopper``'s own
kernel's, through the same helpers (``hopper._row_scores`` walks a row in both). Items
are dealt statically, so rows of unequal length would leave programs idle:
``hopper.bind_forward`` takes this kernel only for rows of at most :data:`MAX_TILES` key
tiles and without the last wave's fill (NOTES v54).
"""

from __future__ import annotations

import os

import torch

from . import fastlaunch, hopper
from .common import ENTRY_SLOT

AVAILABLE = hopper.AVAILABLE

#: The longest rows (in key tiles of ``hopper.BLOCK_N``, the layout's average row) that
#: the chained kernel takes under ``SPARSEFLASH_CHAIN=auto``.
MAX_TILES = 8
#: Whether a row's O leaves by a TMA store through its last V buffer (else by pointer
#: stores).
O_IN_RING = True
#: Whether a row's last ``P V`` is issued before the following item's start (its
#: schedule entry's loads, two dependent rounds, and its copies) and waited after it.
PV_FIRST = True
#: Programs an SM (128 registers a thread and 112 KB of shared memory a program at D=64).
PROGRAMS_PER_SM = 2
#: At most this many programs (None: no cap). Tests set it to run many items a program.
MAX_PROGRAMS = None

if hopper.AVAILABLE:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia.hopper import (mbarrier, tma,
                                                                  warpgroup_mma,
                                                                  warpgroup_mma_wait)

    from .hopper import (_issue_kv_at, _own_coords, _padding, _row_scores, _row_walk,
                         _run_offset, finish_rows, store_rows, sync_partition, tma_load)

    @gluon.jit
    def _item_coords(item, SCHED, NUM_Q_BLOCKS, LAYOUT_HEADS, PER_GROUP, REP,
                     LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr):
        """Work item ``item`` (numbered as ``hopper``'s (programs, head repeat, batch) grid
        numbers its programs, the first axis fastest) -> its schedule entry, batch, head,
        query block, first query row and group (batch * REP + head repeat)."""
        in_group = item % PER_GROUP
        group = item // PER_GROUP
        b = group // REP
        entry, h, q_block, q_start = _own_coords(in_group, group % REP, SCHED, NUM_Q_BLOCKS,
                                                 LAYOUT_HEADS, REP, LAYOUT_BLOCK, BLOCK_M)
        return entry, b, h, q_block, q_start, group

    @gluon.jit
    def _start_item(item, ITEMS, ring, q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, q_bar,
                    k_bar, v_bar, FULL_IDX, PART_IDX, SCHED, KV_LIMITS, stride_lim_b, H, H_KV,
                    N, Nk, NUM_Q_BLOCKS, LAYOUT_HEADS, PER_GROUP, REP, GROUP,
                    LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                    STAGES: gl.constexpr, ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr,
                    HAS_PADDING: gl.constexpr):
        """Issue work item ``item``'s Q copy and its first ``STAGES - 1`` K/V tiles into
        the ring's buffers from ``ring`` on (nothing where ``item`` is past the last),
        and return what its walk needs: batch, first query row, the key head's first row,
        its :func:`hopper._row_walk` and its run's first key. Past the last item these
        are the last item's (never walked)."""
        valid = item < ITEMS
        entry, b, h, q_block, q_start, group = _item_coords(
            gl.minimum(item, ITEMS - 1), SCHED, NUM_Q_BLOCKS, LAYOUT_HEADS, PER_GROUP, REP,
            LAYOUT_BLOCK, BLOCK_M)
        k_row0 = (b * H_KV + h // GROUP) * Nk
        full_start, n_full, part_start, n_tiles = _row_walk(
            entry, b, KV_LIMITS, stride_lim_b, LAYOUT_BLOCK, BLOCK_N, HAS_PARTIAL, HAS_PADDING)
        run_offset = _run_offset(FULL_IDX, full_start, n_full, LAYOUT_BLOCK, ROW_RUNS)
        mbarrier.expect(q_bar, q_desc.block_type.nbytes, pred=valid)
        tma_load(q_desc, [(b * H + h) * N + q_start, 0], q_bar, q_smem, pred=valid)
        n_issued = gl.where(valid, n_tiles, 0)
        for t in gl.static_range(STAGES - 1):
            slot = (ring + t) % STAGES
            _issue_kv_at(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, FULL_IDX, PART_IDX, t,
                         slot, slot, n_full, n_issued, full_start, part_start, run_offset,
                         k_row0, LAYOUT_BLOCK, BLOCK_N, ROW_RUNS, HAS_PARTIAL)
        return b, q_start, k_row0, full_start, n_full, part_start, n_tiles, run_offset

    @gluon.jit
    def hopper_chain_forward_kernel(
            O, LSE, FULL_IDX, PART_IDX, PART_CODE, SCHED, WS_O, WS_LSE, KPM, KV_LIMITS, q_desc,
            k_desc, v_desc, o_desc, qk_scale, stride_ob, stride_oh, stride_on,
            H, H_KV, N, Nk, NUM_Q_BLOCKS, LAYOUT_HEADS, WS_SLOTS, stride_kpm_b, stride_lim_b,
            PER_GROUP, REP, GROUP, ITEMS,
            LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
            D: gl.constexpr, STAGES: gl.constexpr, ROW_RUNS: gl.constexpr,
            HAS_PARTIAL: gl.constexpr, HAS_PADDING: gl.constexpr, O_IN_RING: gl.constexpr,
            ANTICAUSAL: gl.constexpr, P_F32: gl.constexpr, PV_FIRST: gl.constexpr,
            num_warps: gl.constexpr):
        """``hopper.hopper_forward_kernel``'s ``ITEMS`` programs (``PER_GROUP`` a group of
        batch and head repeat, ``REP`` repeats), each taken in turn as a work item by one
        of this 1-D grid's persistent programs (module docstring). Arguments, layouts and
        outputs as that kernel's without its fill; ``O_IN_RING``: O leaves through the
        last tile's V buffer by a TMA store, else by pointer stores; ``PV_FIRST``: a row's
        last ``P V`` is issued before the following item's start and waited after it."""
        dtype: gl.constexpr = q_desc.dtype
        s_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, BLOCK_N, 16])
        o_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, D, 16])
        p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout,
                                                     k_width=2)
        rows_s: gl.constexpr = gl.SliceLayout(1, s_layout)

        q_smem = gl.allocate_shared_memory(dtype, [BLOCK_M, D], q_desc.layout)
        k_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, D], k_desc.layout)
        v_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, D], v_desc.layout)
        q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        k_bar = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        v_bar = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        mbarrier.init(q_bar, count=1)
        for i in gl.static_range(STAGES):
            mbarrier.init(k_bar.index(i), count=1)
            mbarrier.init(v_bar.index(i), count=1)

        item = gl.program_id(0)
        ring = 0   # K/V tiles the program took before this item: the ring's position
        taken = 0  # items the program took before this one (Q's phase)
        b, q_start, k_row0, full_start, n_full, part_start, n_tiles, run_offset = _start_item(
            item, ITEMS, ring, q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, q_bar, k_bar,
            v_bar, FULL_IDX, PART_IDX, SCHED, KV_LIMITS, stride_lim_b, H, H_KV, N, Nk,
            NUM_Q_BLOCKS, LAYOUT_HEADS, PER_GROUP, REP, GROUP, LAYOUT_BLOCK, BLOCK_M, BLOCK_N,
            STAGES, ROW_RUNS, HAS_PARTIAL, HAS_PADDING)
        zero_s = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, s_layout)
        while item < ITEMS:
            kpm_row, first_padding = _padding(KPM, KV_LIMITS, b, stride_kpm_b, stride_lim_b,
                                              LAYOUT_HEADS * NUM_Q_BLOCKS, Nk, HAS_PADDING)
            acc = gl.zeros([BLOCK_M, D], gl.float32, o_layout)
            m_i = gl.full([BLOCK_M], float("-inf"), gl.float32, rows_s)
            l_i = gl.zeros([BLOCK_M], gl.float32, rows_s)
            following = item + gl.num_programs(0)
            mbarrier.wait(q_bar, taken & 1)
            if n_tiles > 0:  # a row with no key block skips to the epilogue (O = 0)
                acc, p, m_i, l_i = _row_scores(
                    acc, m_i, l_i, ring, q_smem, k_smem, v_smem, k_bar, v_bar, zero_s, k_desc,
                    v_desc, FULL_IDX, PART_IDX, PART_CODE, n_full, n_tiles, full_start,
                    part_start, run_offset, k_row0, q_start, Nk, qk_scale, kpm_row,
                    first_padding, LAYOUT_BLOCK, BLOCK_M, BLOCK_N, STAGES, ROW_RUNS,
                    HAS_PARTIAL, HAS_PADDING, ANTICAUSAL, P_F32, O_IN_RING, s_layout,
                    o_layout, p_layout)
                last = ring + n_tiles - 1
                if PV_FIRST:  # the last P V runs under the following item's start
                    mbarrier.wait(v_bar.index(last % STAGES), (last // STAGES) & 1)
                    acc = warpgroup_mma(p, v_smem.index(last % STAGES), acc, is_async=True)
                # Q's buffer and all K/V buffers but the last tile's are free: the
                # following item's copies load under this one's last P V and epilogue.
                (b, q_next, k_row0, full_start, n_full, part_start, n_next,
                 run_offset) = _start_item(
                    following, ITEMS, ring + n_tiles, q_desc, k_desc, v_desc, q_smem, k_smem,
                    v_smem, q_bar, k_bar, v_bar, FULL_IDX, PART_IDX, SCHED, KV_LIMITS,
                    stride_lim_b, H, H_KV, N, Nk, NUM_Q_BLOCKS, LAYOUT_HEADS, PER_GROUP, REP,
                    GROUP, LAYOUT_BLOCK, BLOCK_M, BLOCK_N, STAGES, ROW_RUNS, HAS_PARTIAL,
                    HAS_PADDING)
                if not PV_FIRST:
                    mbarrier.wait(v_bar.index(last % STAGES), (last // STAGES) & 1)
                    acc = warpgroup_mma(p, v_smem.index(last % STAGES), acc, is_async=True)
                acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))[0]
            else:
                (b, q_next, k_row0, full_start, n_full, part_start, n_next,
                 run_offset) = _start_item(
                    following, ITEMS, ring, q_desc, k_desc, v_desc, q_smem, k_smem, v_smem,
                    q_bar, k_bar, v_bar, FULL_IDX, PART_IDX, SCHED, KV_LIMITS, stride_lim_b,
                    H, H_KV, N, Nk, NUM_Q_BLOCKS, LAYOUT_HEADS, PER_GROUP, REP, GROUP,
                    LAYOUT_BLOCK, BLOCK_M, BLOCK_N, STAGES, ROW_RUNS, HAS_PARTIAL,
                    HAS_PADDING)

            out, lse = finish_rows(acc, m_i, l_i, o_layout)
            # This item's coordinates anew (kept through the walk they would cost the
            # second program an SM its registers, as in hopper's kernel).
            entry, b_out, h, q_block, q_out, group = _item_coords(
                item, SCHED, NUM_Q_BLOCKS, LAYOUT_HEADS, PER_GROUP, REP, LAYOUT_BLOCK, BLOCK_M)
            split_slot = gl.load(entry + ENTRY_SLOT)
            if O_IN_RING:
                # The last tile's V buffer (an empty row: the one before it). An earlier
                # store may still read it (an empty row's case), and every warp group's
                # last P V must have.
                o_smem = v_smem.index((ring + n_tiles + STAGES - 1) % STAGES)
                tma.store_wait(0)
                sync_partition()
                store_rows(out, lse, o_smem, o_desc, O, LSE, WS_O, WS_LSE, split_slot, b_out,
                           h, q_block, q_out, group, stride_ob, stride_oh, stride_on, H, N,
                           WS_SLOTS, LAYOUT_BLOCK, True, False, s_layout, o_layout)
            else:
                store_rows(out, lse, q_smem, o_desc, O, LSE, WS_O, WS_LSE, split_slot, b_out,
                           h, q_block, q_out, group, stride_ob, stride_oh, stride_on, H, N,
                           WS_SLOTS, LAYOUT_BLOCK, False, True, s_layout, o_layout)
            ring += n_tiles
            taken += 1
            item = following
            q_start = q_next
            n_tiles = n_next

        tma.store_wait(0)
        mbarrier.invalidate(q_bar)
        for i in gl.static_range(STAGES):
            mbarrier.invalidate(k_bar.index(i))
            mbarrier.invalidate(v_bar.index(i))

    _KERNEL = fastlaunch.Kernel(hopper_chain_forward_kernel)


def choice() -> str:
    """``SPARSEFLASH_CHAIN`` (``auto``, ``0`` or ``1``; default ``auto``): whether
    ``hopper.bind_forward`` runs the D=64 forward as this module's persistent programs on
    rows of at most :data:`MAX_TILES` key tiles (``auto``), everywhere it may (``1``),
    or never (``0``)."""
    value = os.environ.get("SPARSEFLASH_CHAIN", "auto")
    if value not in ("auto", "0", "1"):
        raise ValueError(f"SPARSEFLASH_CHAIN must be auto, 0 or 1, not {value!r}")
    return value


def chosen(head_dim: int, longest_blocks, layout_block: int) -> bool:
    """Whether ``hopper.bind_forward`` takes this kernel in place of its own: at D=64,
    under ``auto`` where no program walks more than :data:`MAX_TILES` key tiles
    (``longest_blocks`` full layout blocks, ``LayoutMeta.row_stretch``; None: not known,
    so not taken): items are dealt statically, and one long row among short ones would
    hold its program while the others finish."""
    which = choice()
    if which == "0" or head_dim != 64:
        return False
    if which == "1":
        return True
    return (longest_blocks is not None
            and longest_blocks * (layout_block // hopper.BLOCK_N) <= MAX_TILES)


def bind_forward(q, k, o, programs, groups, num_q_blocks, layout_heads, ws_slots,
                 layout_block, row_runs, has_partial, has_padding, stride_kpm_b,
                 stride_lim_b, anticausal, p_f32) -> "hopper.BoundForward":
    """:func:`hopper_chain_forward_kernel` bound to these shapes, as
    ``hopper.bind_forward`` binds its own kernel (same arguments), on a grid of
    :data:`PROGRAMS_PER_SM` programs an SM (fewer where there are fewer items, or
    :data:`MAX_PROGRAMS`)."""
    B, H, N, D = q.shape
    H_kv, Nk = k.shape[1], k.shape[2]
    per_group = programs * (layout_block // hopper.BLOCK_M)
    items = per_group * groups
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    programs = min(items, PROGRAMS_PER_SM * sms, MAX_PROGRAMS or items)
    launch = _KERNEL.bind(
        (programs,), (q.dtype,),
        (*o.stride()[:3], H, H_kv, N, Nk, num_q_blocks, layout_heads, ws_slots, stride_kpm_b,
         stride_lim_b, per_group, H // layout_heads, H // H_kv, items),
        LAYOUT_BLOCK=layout_block, BLOCK_M=hopper.BLOCK_M, BLOCK_N=hopper.BLOCK_N, D=D,
        STAGES=hopper.STAGES, ROW_RUNS=row_runs, HAS_PARTIAL=has_partial,
        HAS_PADDING=has_padding, O_IN_RING=O_IN_RING, PV_FIRST=PV_FIRST,
        ANTICAUSAL=bool(has_partial and anticausal), P_F32=p_f32,
        num_warps=hopper.NUM_WARPS, **hopper.compile_options(D))
    return hopper.BoundForward(launch, hopper.BLOCK_M)
