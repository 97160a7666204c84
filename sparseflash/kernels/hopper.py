"""The forward on Hopper GPUs, written in Gluon (Triton's lower-level language).

Same schedule, tables, masks and outputs as ``forward.attention_forward_kernel``; what
differs is who pipelines the loads. Triton's pipeliner cannot keep K/V copies in flight
past a block index read from the table, and keeps two tiles ahead at best
(benchmarks/NOTES.md, v16). Here each program runs a ring of ``STAGES`` K/V buffers
filled by the copy engine (TMA) on mbarriers, and computes the addresses of those copies
itself, so a table walk pipelines like a computed one.

On an H200 (NOTES v18, ``benchmarks/sessions/s16_gluon_ab.py`` and ``s16_store_ab.py``)
its kernels take less GPU time than the Triton kernel's on dense D=64 (2.28 against 2.45
ms; the forward runs above cuDNN's speed), on causal D=64 and on the short rows of
``butterfly``, random+global and ``local(3)`` (3-8%). Whole forward calls, host time
included, alternating with the Triton forward in session 17 (NOTES v19,
``benchmarks/sessions/s17-call5.sh``) were faster through it on every README layout at
both head dims (2-13%) except causal at D=128 (2.5% slower). Since session 20 the D=128
forward is ``hopper_pingpong``'s warp-specialised kernel (16-27% faster than this one,
NOTES v22), which :func:`bind_forward` binds in its place, as for D=64 calls with partial
blocks and long rows where this kernel carries P in bf16 (key padding, anti-causal blocks;
``hopper_pingpong.D64_MASKED_ROW_KEYS``, NOTES v34; elsewhere, carrying P in float32
through its full tiles since session 49, this one is 4-9% faster on ``causal``, NOTES
v50); :func:`usable` (asked for
both) takes the Gluon forward by default everywhere it can run, and with the ping-pong
kernel turned off everywhere but on layouts with partial blocks at D=128.
Key padding (since session 27, NOTES v29) cuts each sequence's walk after its last real key,
as the Triton kernel does, and masks padding keys only in the tiles that reach the
sequence's first padding key (the last column of ``Layout.padding_limits``): a padded call
runs at the unpadded speed. Calls with dropout run ``hopper_pingpong``'s kernel at both head
dims (since session 29, NOTES v31), which draws the Triton kernel's dropout bits; everything
else (other GPUs, the interpreter, other head dims) goes through the Triton kernel.
Equal rows whose programs leave the last wave partly idle run the last (batch, head)
groups' programs in chunks after every whole one, merged afterwards (:data:`FILL_LAST_WAVE`,
:func:`fill_plan`; session 46, NOTES v47): on an H200 a dense D=64 forward of one head of
16K tokens (128 programs, one an SM) took 0.150 ms against 0.199, one of 17,920 tokens
0.215 against 0.312.
Gluon has no interpreter: ``tests/test_hopper_compile.py`` compiles this kernel for sm_90
on any machine, ``tests/test_gpu.py -k gluon`` runs it. Gluon is experimental in Triton;
this module imports nothing when it is missing.
"""

from __future__ import annotations

import functools
import os
from typing import NamedTuple

import torch

from ..layout import schedule
from . import fastlaunch
from .common import (CODE_ANTICAUSAL, CODE_BOUNDS, CODE_CAUSAL, ENTRY_FIELDS,
                     ENTRY_FULL_END, ENTRY_FULL_START, ENTRY_PARTIAL_END, ENTRY_PARTIAL_START,
                     ENTRY_ROW, ENTRY_SLOT)

try:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier,
                                                                  tma, warpgroup_mma,
                                                                  warpgroup_mma_wait)
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    # Triton 3.6 names the TMA load async_copy_global_to_shared; later Triton renamed it
    # async_load (and the old name raises).
    tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
    tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global
    AVAILABLE = True
except ImportError:  # a Triton without Gluon's Hopper API
    AVAILABLE = False

#: Query rows per program (two warp groups of 64), key rows per tile, K/V buffers.
BLOCK_M, BLOCK_N, STAGES, NUM_WARPS = 128, 128, 3, 8
#: Output tiles wholly inside the sequence leave through Q's shared buffer by the copy
#: engine (one asynchronous store) instead of the threads' scattered pointer stores.
TMA_STORE = True
#: The running maximum of a row's online softmax moves only when a tile's maximum passes
#: it by more than :data:`RESCALE_SLACK` (base 2), as FlashAttention-4 does (Dao et al.,
#: 2025): a tile whose maximum stays within the slack adds probabilities of up to
#: 2^RESCALE_SLACK against the old maximum (exact: the sum carries the same scale), and a
#: thread whose two rows both keep their maxima skips the 32 multiplications that rescale
#: its share of the output (:func:`_rescale_rows`). Taken (:func:`lazy_rescale`) only
#: where the D=64 forward carries P in float32 (:func:`carries_p_f32`: layouts with
#: partial blocks) and rows average at least :data:`LAZY_RESCALE_ROW_KEYS` keys. On an
#: H200 (NOTES v56, ``benchmarks/sessions/s55_lazy_causal_ab.py``) ``causal`` forwards
#: took 1.184 ms against 1.225 at 16K tokens and 0.328 against 0.335 at 4K; shorter rows
#: lost (``local(3) & causal``, 3 blocks a row: 0.104 against 0.103), and layouts of
#: full blocks moved by -0.7% to +0.9% (``s55_lazy_rescale_ab.py``): their trips are bound
#: by the MMA waits and thread barriers, not by issue, so the ~23 instructions a warp a
#: trip that it saves turn into waiting (Nsight Compute, NOTES v57). The D=128 ping-pong
#: forward takes it on the same layouts (``hopper_pingpong.LAZY_RESCALE``).
LAZY_RESCALE = True
RESCALE_SLACK = 8.0
LAZY_RESCALE_ROW_KEYS = 2048
#: Whether equal rows fill the last wave of the grid (two programs an SM): where
#: :func:`fill_plan` finds it worth it, the last (batch, head) groups' programs run as
#: chunks after every whole one, their results merged afterwards, as
#: ``hopper_pingpong.FILL_LAST_WAVE`` fills the persistent forward's.
FILL_LAST_WAVE = True


def _rescale_asm(n: int) -> str:
    """PTX for :func:`_rescale_rows` on ``n`` accumulator elements a thread: operands 0 to
    n-1 the elements (tied to inputs n to 2n-1), 2n to 3n-1 each one's row factor. The
    elements are multiplied only if the factor of element 0 or 2 is not 1: those are the
    thread's two rows (an MMA accumulator's thread holds rows r and r+8, two
    neighbouring columns of each: elements 0-1 row r, 2-3 row r+8, and so on; the SASS
    compare reads the same register for elements 0 and 1). The branch is the thread's
    own (the warp's vote, a uniform branch, measured no better: NOTES v56)."""
    test = [f"setp.neu.f32 keep, ${2 * n}, 0f3F800000;",
            f"setp.neu.f32 other, ${2 * n + 2}, 0f3F800000;", "or.pred keep, keep, other;",
            "@!keep bra done;"]
    scale = [f"mul.f32 ${i}, ${i}, ${2 * n + i};" for i in range(n)]
    return "\n".join(["{", ".reg .pred keep, other;", *test, *scale, "done:", "}"])


def _rescale_constraints(n: int) -> str:
    """:func:`_rescale_asm`'s constraints: n outputs, n inputs tied to them, n factors."""
    return ",".join(["=r"] * n + [str(i) for i in range(n)] + ["r"] * n)


if AVAILABLE:
    #: A barrier of the calling partition's threads (a warp group's, in a warp-specialised
    #: kernel; Triton 3.6 names it thread_barrier, later ones barrier).
    sync_partition = getattr(gl, "thread_barrier", None) or gl.barrier
    # D=64's accumulator (128 x 64 on 8 warps, or a ping-pong warp group's 64 x 64 on 4)
    # and D=128's (a ping-pong warp group's 64 x 128): its elements a thread.
    _RESCALE_ASM_32 = gl.constexpr(_rescale_asm(32))
    _RESCALE_CONSTRAINTS_32 = gl.constexpr(_rescale_constraints(32))
    _RESCALE_ASM_64 = gl.constexpr(_rescale_asm(64))
    _RESCALE_CONSTRAINTS_64 = gl.constexpr(_rescale_constraints(64))

    @gluon.jit
    def _coords_at(pid, pid_g, SCHED, H, NUM_Q_BLOCKS, LAYOUT_HEADS,
                   LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr):
        """The schedule entry (a pointer), batch, head, query block and first query row of
        program (``pid``, ``pid_g``) (:func:`program_item`), or of the work item a
        persistent program (``hopper_pingpong``) takes in turn where a program of its own
        would have had those ids. (:func:`hopper_forward_kernel` takes its own without
        integer divisions: :func:`_own_coords`. It derives them before its loop and again
        after it: keeping them in registers across the loop cost the D=64 kernel its
        second program per SM, 132 registers a thread against 128; NOTES v18.) The
        backward's column programs read their schedule with it too
        (``hopper_backward._column_at``: kv heads, key blocks, key rows in place of query
        ones), as ``common.scheduled_program`` serves both Triton kernels."""
        TILES: gl.constexpr = LAYOUT_BLOCK // BLOCK_M
        entry = SCHED + (pid // TILES) * ENTRY_FIELDS
        row = gl.load(entry + ENTRY_ROW)
        rep = H // LAYOUT_HEADS
        b = pid_g // rep
        h = (row // NUM_Q_BLOCKS) * rep + pid_g % rep
        q_block = row % NUM_Q_BLOCKS
        q_start = q_block * LAYOUT_BLOCK + (pid % TILES) * BLOCK_M
        return entry, b, h, q_block, q_start

    @gluon.jit
    def _own_item(X, FILL_FROM, CHUNKS, REP, FILL: gl.constexpr, AGAIN: gl.constexpr = False):
        """:func:`program_item` of :func:`hopper_forward_kernel`'s programs, with the
        group split into its batch and head repeat: (program within its group, group,
        batch, head repeat, chunk, chunks). On the 3-D grid (``X``, ``REP``, batch) that
        :func:`bind_forward` launches without ``FILL`` these are program ids, where the
        2-D grid's group id took an integer division (~25 instructions, which the
        co-resident program's softmax competes with for issue slots: the prologue before
        Q's copy is issue-bound, NOTES v53); with ``FILL`` the 1-D grid's
        :func:`fill_item` and a division by ``REP``."""
        if FILL:
            in_group, pid_g, chunk, chunks = program_item(X, FILL_FROM, CHUNKS, FILL, AGAIN)
            return in_group, pid_g, pid_g // REP, pid_g % REP, chunk, chunks
        else:
            b = gl.program_id(2)
            r = gl.program_id(1)
            return gl.program_id(0), b * REP + r, b, r, 0, 1

    @gluon.jit
    def _own_coords(pid, r, SCHED, NUM_Q_BLOCKS, LAYOUT_HEADS, REP,
                    LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr):
        """:func:`_coords_at` of :func:`hopper_forward_kernel`'s program ``pid`` of head
        repeat ``r`` (:func:`_own_item`): the schedule entry, head, query block and first
        query row. A broadcast layout (``LAYOUT_HEADS`` 1, which Triton specialises as a
        constant) numbers its rows by query block alone, so no division is left."""
        TILES: gl.constexpr = LAYOUT_BLOCK // BLOCK_M
        entry = SCHED + (pid // TILES) * ENTRY_FIELDS
        row = gl.load(entry + ENTRY_ROW)
        if LAYOUT_HEADS == 1:
            h = r
            q_block = row
        else:
            h = (row // NUM_Q_BLOCKS) * REP + r
            q_block = row % NUM_Q_BLOCKS
        q_start = q_block * LAYOUT_BLOCK + (pid % TILES) * BLOCK_M
        return entry, h, q_block, q_start

    @gluon.jit
    def _walk(entry, LAYOUT_BLOCK: gl.constexpr, TILE: gl.constexpr,
              HAS_PARTIAL: gl.constexpr):
        """A schedule entry's walk in tiles of ``TILE`` rows: where its full blocks start
        in the table, its number of full tiles, where its partial blocks start, and its
        number of tiles in all. Shared by the forwards here and in ``hopper_pingpong``
        (query rows, key tiles) and ``hopper_backward._column`` (key columns, query
        tiles)."""
        SUB: gl.constexpr = LAYOUT_BLOCK // TILE
        full_start = gl.load(entry + ENTRY_FULL_START)
        n_full = (gl.load(entry + ENTRY_FULL_END) - full_start) * SUB
        if HAS_PARTIAL:
            part_start = gl.load(entry + ENTRY_PARTIAL_START)
            n_tiles = n_full + (gl.load(entry + ENTRY_PARTIAL_END) - part_start) * SUB
        else:
            part_start = 0
            n_tiles = n_full
        return full_start, n_full, part_start, n_tiles

    @gluon.jit
    def fill_item(item, X, FILL_FROM, CHUNKS):
        """-> (program within its group (schedule entry * tiles + tile), group, chunk,
        chunks) of work item ``item`` of a grid that fills its last wave
        (``schedule.fill_last_wave``): the ``FILL_FROM * X`` whole items of groups 0 ..
        FILL_FROM - 1, group after group (the order of an (X, groups) grid), then each
        later group's ``X`` items as ``CHUNKS`` chunks each, chunk 0 of all of them first.
        The fused backward's programs (``hopper_fused``) and the persistent forward's
        items (``hopper_pingpong``) are numbered so."""
        fill = (item >= FILL_FROM * X).to(gl.int32)
        chunks = 1 + fill * (CHUNKS - 1)
        t = item - fill * FILL_FROM * X
        per = X * chunks
        r = t % per
        return r % X, fill * FILL_FROM + t // per, r // X, chunks

    @gluon.jit
    def program_item(X, FILL_FROM, CHUNKS, FILL: gl.constexpr, AGAIN: gl.constexpr = False):
        """This program's (program within its group, group, chunk, chunks): its two program
        ids on a (programs, groups) grid, or with ``FILL`` :func:`fill_item` of its id on
        the 1-D grid that fills the last wave (``X`` programs a group). ``AGAIN``: derived
        anew from the id's register (:func:`_program_id_again`), for a kernel that derived
        them before its loop too."""
        if FILL:
            pid = _program_id_again() if AGAIN else gl.program_id(0)
            return fill_item(pid, X, FILL_FROM, CHUNKS)
        else:
            return gl.program_id(0), gl.program_id(1), 0, 1

    @gluon.jit
    def _program_id_again():
        """``gl.program_id(0)``, read from its special register by an operation the
        compiler may not merge with an earlier read. Merged, a kernel that derives its
        coordinates before its loop and again after it (to keep them out of the loop's
        registers) keeps the first derivation's values live through the loop: at the D=64
        forward's cap of 128 registers, :func:`fill_item`'s values cost an 8-byte spill
        inside its tile loop (ptxas of Triton 3.6; none read anew), and the fused
        backward's fill read the program id from its special register on every tile of
        one warp group's loop (NOTES v47)."""
        return gl.inline_asm_elementwise("mov.u32 $0, %ctaid.x;", "=r", [], dtype=gl.int32,
                                         is_pure=False, pack=1)

    @gluon.jit
    def chunk_walk(full_start, n_full, part_start, n_tiles, chunk, chunks,
                   SUB: gl.constexpr, HAS_PARTIAL: gl.constexpr = True):
        """The stretch of a walk (:func:`_walk`'s four values, in tiles of ``1 / SUB``
        layout block) that chunk ``chunk`` of ``chunks`` takes: its blocks
        ``[chunk * n // chunks, (chunk + 1) * n // chunks)`` of the walk's ``n``, full
        ones first, as ``schedule.build_schedule`` cuts a split row. Without
        ``HAS_PARTIAL`` the stretch's count of tiles is its count of full tiles, one value
        (as in :func:`_walk`): two, at the D=64 forward's register cap, cost a spill in its
        tile loop (NOTES v46)."""
        if HAS_PARTIAL:
            full_blocks = n_full // SUB
            lo = chunk * (n_tiles // SUB) // chunks
            hi = (chunk + 1) * (n_tiles // SUB) // chunks
            lo_full = gl.minimum(lo, full_blocks)
            hi_full = gl.minimum(hi, full_blocks)
            return (full_start + lo_full, (hi_full - lo_full) * SUB, part_start + lo - lo_full,
                    (hi - lo) * SUB)
        else:
            lo = chunk * (n_full // SUB) // chunks
            n_chunk = ((chunk + 1) * (n_full // SUB) // chunks - lo) * SUB
            return full_start + lo, n_chunk, part_start, n_chunk

    @gluon.jit
    def fill_slot(entry, in_group, group, chunk, chunks, FILL_FROM, TILES: gl.constexpr,
                  FILL: gl.constexpr = True):
        """-> (workspace slot, workspace group) of a program or work item numbered by
        :func:`fill_item`: a chunk's (``chunks`` > 1) slot ``entry * chunks + chunk`` of
        group ``group - FILL_FROM``, where ``entry`` is ``in_group // TILES``; otherwise
        its schedule entry's slot (-1 unless the layout splits the row) in ``group``, as
        always without ``FILL``."""
        if not FILL:
            return gl.load(entry + ENTRY_SLOT), group
        chunked = (chunks > 1).to(gl.int32)
        slot = chunked * ((in_group // TILES) * chunks + chunk) \
            + (1 - chunked) * gl.load(entry + ENTRY_SLOT)
        return slot, group - chunked * FILL_FROM

    @gluon.jit
    def _row_walk(entry, b, KV_LIMITS, stride_lim_b, LAYOUT_BLOCK: gl.constexpr,
                  TILE: gl.constexpr, HAS_PARTIAL: gl.constexpr, HAS_PADDING: gl.constexpr,
                  chunk=0, chunks=1, CHUNKED: gl.constexpr = False):
        """:func:`_walk` of a query row's schedule entry for sequence ``b`` (with
        ``CHUNKED``, of its chunk ``chunk`` of ``chunks``: :func:`chunk_walk`); with
        ``HAS_PADDING`` its counts of full tiles and of all tiles cut where ``KV_LIMITS``
        (``Layout.padding_limits``) says the lists' blocks hold nothing but padding, as the
        Triton kernels' ``walk_ends`` cuts them."""
        full_start, n_full, part_start, n_tiles = _walk(entry, LAYOUT_BLOCK, TILE,
                                                        HAS_PARTIAL)
        if CHUNKED:
            full_start, n_full, part_start, n_tiles = chunk_walk(
                full_start, n_full, part_start, n_tiles, chunk, chunks, LAYOUT_BLOCK // TILE,
                HAS_PARTIAL)
        if HAS_PADDING:
            SUB: gl.constexpr = LAYOUT_BLOCK // TILE
            limits = KV_LIMITS + b * stride_lim_b + 1 + 2 * gl.load(entry + ENTRY_ROW)
            n_part = n_tiles - n_full
            n_full = gl.minimum(n_full, gl.maximum(gl.load(limits) - full_start, 0) * SUB)
            if HAS_PARTIAL:
                n_part = gl.minimum(n_part,
                                    gl.maximum(gl.load(limits + 1) - part_start, 0) * SUB)
            n_tiles = n_full + n_part
        return full_start, n_full, part_start, n_tiles

    @gluon.jit
    def _run_offset(FULL_IDX, full_start, n_full, LAYOUT_BLOCK: gl.constexpr,
                    ROW_RUNS: gl.constexpr):
        """The first key of a row whose full blocks are one consecutive run (``ROW_RUNS``):
        the run's tiles lie at computed offsets from it. 0 otherwise (never read)."""
        if ROW_RUNS:
            return gl.load(FULL_IDX + full_start, mask=n_full > 0, other=0) * LAYOUT_BLOCK
        else:
            return 0

    @gluon.jit
    def _padding(KPM, KV_LIMITS, b, stride_kpm_b, stride_lim_b, rows, Nk,
                 HAS_PADDING: gl.constexpr):
        """Sequence ``b``'s row of the key padding mask (a pointer) and its first padding
        key (the last column of ``KV_LIMITS``, after the ``rows`` layout rows' cuts);
        without ``HAS_PADDING``, ``KPM`` and ``Nk`` (never read)."""
        if HAS_PADDING:
            return (KPM + b.to(gl.int64) * stride_kpm_b,
                    gl.load(KV_LIMITS + b * stride_lim_b + 1 + 2 * rows))
        else:
            return KPM, Nk

    @gluon.jit
    def _tile_keys(j, n_full, full_start, part_start, FULL_IDX, PART_IDX, run_offset,
                   LAYOUT_BLOCK: gl.constexpr, BLOCK_N: gl.constexpr,
                   ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr):
        """The first key of the walk's tile ``j`` (as :func:`_issue_kv_at` finds it)."""
        SUB: gl.constexpr = LAYOUT_BLOCK // BLOCK_N
        if ROW_RUNS:
            start = run_offset + j * BLOCK_N
        else:
            start = gl.load(FULL_IDX + full_start + j // SUB, mask=j < n_full, other=0) \
                * LAYOUT_BLOCK + (j % SUB) * BLOCK_N
        if HAS_PARTIAL:
            if j >= n_full:
                start = gl.load(PART_IDX + part_start + (j - n_full) // SUB) * LAYOUT_BLOCK \
                    + (j % SUB) * BLOCK_N
        return start

    @gluon.jit
    def mask_padding(s, j, n_full, full_start, part_start, FULL_IDX, PART_IDX, run_offset,
                     kpm_row, first_padding, Nk, LAYOUT_BLOCK: gl.constexpr,
                     BLOCK_N: gl.constexpr, ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr,
                     layout: gl.constexpr):
        """Scores ``s`` (rows, BLOCK_N) of the walk's key tile ``j`` with its padding keys'
        columns at -inf: only where the tile reaches the sequence's first padding key (the
        rest need nothing). Keys past ``Nk`` count as padding. Shared by the forwards here
        and in ``hopper_pingpong``."""
        key_start = _tile_keys(j, n_full, full_start, part_start, FULL_IDX, PART_IDX,
                               run_offset, LAYOUT_BLOCK, BLOCK_N, ROW_RUNS, HAS_PARTIAL)
        if key_start + BLOCK_N > first_padding:
            offs_n = key_start + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, layout))
            real = gl.load(kpm_row + offs_n, mask=offs_n < Nk, other=1) == 0
            s = gl.where(gl.expand_dims(real, 0), s, float("-inf"))
        return s

    @gluon.jit
    def _issue_kv(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, FULL_IDX, PART_IDX, t,
                  n_full, n_tiles, full_start, part_start, run_offset, k_row0,
                  LAYOUT_BLOCK: gl.constexpr, BLOCK_N: gl.constexpr, STAGES: gl.constexpr,
                  ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr):
        """Start the copies of the program's key tile ``t`` (none past the last) into
        buffer ``t % STAGES``: full blocks first (consecutive rows from ``run_offset`` past
        the head's first key row ``k_row0``, or read from the table), then partial ones."""
        _issue_kv_at(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, FULL_IDX, PART_IDX, t,
                     t % STAGES, t % STAGES, n_full, n_tiles, full_start, part_start,
                     run_offset, k_row0, LAYOUT_BLOCK, BLOCK_N, ROW_RUNS, HAS_PARTIAL)

    @gluon.jit
    def _issue_kv_at(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, FULL_IDX, PART_IDX, t,
                     k_slot, v_slot, n_full, n_tiles, full_start, part_start, run_offset,
                     k_row0, LAYOUT_BLOCK: gl.constexpr, BLOCK_N: gl.constexpr,
                     ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr):
        """:func:`_issue_kv` into K buffer ``k_slot`` and V buffer ``v_slot`` (a persistent
        program's rings run on across its work items, so a slot is not the item's tile
        index, and its K and V rings may differ in depth)."""
        SUB: gl.constexpr = LAYOUT_BLOCK // BLOCK_N
        ok = t < n_tiles
        if ROW_RUNS:
            offset = run_offset + t * BLOCK_N
        else:
            block = gl.load(FULL_IDX + full_start + t // SUB, mask=ok & (t < n_full), other=0)
            offset = block * LAYOUT_BLOCK + (t % SUB) * BLOCK_N
        if HAS_PARTIAL:
            part = gl.load(PART_IDX + part_start + (t - n_full) // SUB,
                           mask=ok & (t >= n_full), other=0)
            offset = gl.where(t < n_full, offset, part * LAYOUT_BLOCK + (t % SUB) * BLOCK_N)
        mbarrier.expect(k_bar.index(k_slot), k_desc.block_type.nbytes, pred=ok)
        tma_load(k_desc, [k_row0 + offset, 0], k_bar.index(k_slot), k_smem.index(k_slot),
                 pred=ok)
        mbarrier.expect(v_bar.index(v_slot), v_desc.block_type.nbytes, pred=ok)
        tma_load(v_desc, [k_row0 + offset, 0], v_bar.index(v_slot), v_smem.index(v_slot),
                 pred=ok)

    @gluon.jit
    def partial_select(x, OTHER: gl.constexpr, code, q_start, key_start, Nk,
                       BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, layout: gl.constexpr,
                       KEYS_FIRST: gl.constexpr = False, ANTICAUSAL: gl.constexpr = True):
        """``x`` (BLOCK_M queries from ``q_start``, BLOCK_N keys from ``key_start``; with
        ``KEYS_FIRST`` (BLOCK_N, BLOCK_M), for the backward's transposed scores) with the
        entries a partial block of mask ``code`` leaves out set to ``OTHER``, by
        ``common.tile_mask``'s rule without key padding: keys past ``Nk`` never count, a
        causal block keeps the keys up to its query, an anti-causal one those past it.

        One compare an entry against a bound of its tile row: queries first, a key below
        the row's upper bound (``min(q + 1, Nk)`` on a causal block, ``Nk`` on the
        others); keys first, a query from the row's first one (its key on a causal block,
        0 on the others, none past ``Nk``). An anti-causal block adds a second compare,
        under a branch that ``ANTICAUSAL`` False (no block of the layout is anti-causal)
        leaves out of the code. (A boolean tile of the three codes' rule, selected at
        once, took 5-7 instructions an entry and, in the forward, made a short ``causal``
        row's diagonal tile cost several full tiles: NOTES v49.)"""
        if KEYS_FIRST:
            keys = key_start + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, layout))
            queries = gl.expand_dims(
                q_start + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(0, layout)), 0)
            first = gl.where(code == CODE_CAUSAL, keys, 0)
            first = gl.where(keys < Nk, first, 2147483647)
            x = gl.where(queries >= gl.expand_dims(first, 1), x, OTHER)
            if ANTICAUSAL:
                if code == CODE_ANTICAUSAL:
                    x = gl.where(queries < gl.expand_dims(keys, 1), x, OTHER)
        else:
            queries = q_start + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, layout))
            keys = gl.expand_dims(
                key_start + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, layout)), 0)
            upper = gl.where(code == CODE_CAUSAL, gl.minimum(queries + 1, Nk), Nk)
            x = gl.where(keys < gl.expand_dims(upper, 1), x, OTHER)
            if ANTICAUSAL:
                if code == CODE_ANTICAUSAL:
                    x = gl.where(keys > gl.expand_dims(queries, 1), x, OTHER)
        return x

    @gluon.jit
    def _scores_issue(q_smem, k_smem, k_bar, zero_s, j, STAGES: gl.constexpr):
        """Issue the score product Q K_j^T of key tile ``j`` once its keys have landed;
        :func:`_scores_done` waits for it. (The caller may issue copies in between, under
        the product.)"""
        slot = j % STAGES
        mbarrier.wait(k_bar.index(slot), (j // STAGES) & 1)
        return warpgroup_mma(q_smem, k_smem.index(slot).permute((1, 0)), zero_s,
                             use_acc=False, is_async=True)

    @gluon.jit
    def _scores_done(s, j, partial, n_full, part_start, PART_IDX, PART_CODE, q_start, Nk,
                     LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr,
                     BLOCK_N: gl.constexpr, MASKED: gl.constexpr, ANTICAUSAL: gl.constexpr,
                     s_layout: gl.constexpr):
        """Raw scores Q K_j^T (BLOCK_M, BLOCK_N) of key tile ``j``, float32, from the
        product :func:`_scores_issue` issued. With ``MASKED`` and ``partial`` (tile j is a
        partial block's) the scores its mask leaves out are -inf (:func:`partial_select`,
        with ``ANTICAUSAL``)."""
        SUB: gl.constexpr = LAYOUT_BLOCK // BLOCK_N
        s = warpgroup_mma_wait(num_outstanding=0, deps=(s,))
        if MASKED:
            if partial:
                listed = part_start + (j - n_full) // SUB
                key_start = gl.load(PART_IDX + listed) * LAYOUT_BLOCK + (j % SUB) * BLOCK_N
                s = partial_select(s, float("-inf"), gl.load(PART_CODE + listed), q_start,
                                   key_start, Nk, BLOCK_M, BLOCK_N, s_layout,
                                   ANTICAUSAL=ANTICAUSAL)
        return s

    @gluon.jit
    def _softmax_step(s, m_i, l_i, qk_scale, GUARD: gl.constexpr, LAZY: gl.constexpr = False,
                      SLACK: gl.constexpr = 8.0):
        """Online softmax of one score tile, as the Triton forward: the maximum over raw
        scores, scaled once per row (base 2). Returns the tile's probabilities, the new
        maxima and sums, and the factor that rescales what came before. With ``GUARD``
        (layouts with partial blocks, whose masks can leave a row with nothing so far) a
        row at -inf shifts by 0 so that exp2 gives 0, not NaN. With ``LAZY``
        (:data:`LAZY_RESCALE`) a row keeps its maximum unless the tile's passes it by more
        than ``SLACK``: its factor is then exactly 1 and its probabilities at most
        2^SLACK. (A row at -inf always moves: -inf + SLACK is -inf.)"""
        m_tile = gl.max(s, 1) * qk_scale
        if LAZY:
            m_new = gl.where(m_tile > m_i + SLACK, m_tile, m_i)
        else:
            m_new = gl.maximum(m_i, m_tile)
        if GUARD:
            m_shift = gl.where(m_new == float("-inf"), 0.0, m_new)
        else:
            m_shift = m_new
        p = gl.exp2(s * qk_scale - gl.expand_dims(m_shift, 1))
        alpha = gl.exp2(m_i - m_shift)
        return p, m_new, l_i * alpha + gl.sum(p, 1), alpha

    @gluon.jit
    def _rescale_rows(acc, alpha, o_layout: gl.constexpr, LAZY: gl.constexpr = False):
        """``acc`` (BLOCK_M, D) with each row times its factor ``alpha`` (BLOCK_M, the
        softmax's rows); with ``LAZY`` (:func:`_softmax_step`'s, whose factors are mostly
        exactly 1) a thread skips the multiplications where its rows' factors are 1."""
        factor = gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, o_layout)), 1)
        if LAZY:
            PER_THREAD: gl.constexpr = acc.shape[0] * acc.shape[1] // (32 * gl.num_warps())
            gl.static_assert(PER_THREAD == 32 or PER_THREAD == 64,
                             "the lazy rescale's PTX is for 32 or 64 elements a thread")
            factor, acc = gl.broadcast(factor, acc)
            if PER_THREAD == 32:
                acc = gl.inline_asm_elementwise(_RESCALE_ASM_32, _RESCALE_CONSTRAINTS_32,
                                                [acc, factor], dtype=gl.float32,
                                                is_pure=True, pack=32)
            else:
                acc = gl.inline_asm_elementwise(_RESCALE_ASM_64, _RESCALE_CONSTRAINTS_64,
                                                [acc, factor], dtype=gl.float32,
                                                is_pure=True, pack=64)
        else:
            acc = acc * factor
        return acc

    @gluon.jit
    def _step(acc, p, m_i, l_i, j, q_smem, k_smem, v_smem, k_bar, v_bar, zero_s, k_desc,
              v_desc, FULL_IDX, PART_IDX, PART_CODE, n_full, n_tiles, full_start, part_start,
              run_offset, k_row0, q_start, Nk, qk_scale, kpm_row, first_padding,
              LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
              STAGES: gl.constexpr, ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr,
              MASKED: gl.constexpr, PADDED: gl.constexpr, ANTICAUSAL: gl.constexpr,
              s_layout: gl.constexpr, o_layout: gl.constexpr, p_layout: gl.constexpr,
              P_F32: gl.constexpr = False, LAZY: gl.constexpr = False,
              SLACK: gl.constexpr = 8.0):
        """One trip of the loop: tile j-1's ``P V`` into ``acc``, then tile j's scores and
        softmax (``MASKED``: tile j is a partial block's; ``PADDED``: its padding keys
        masked, :func:`mask_padding`); refills tile j-1's buffers with tile j-1+STAGES
        while tile j's score product runs.
        Returns the new ``acc, p, m_i, l_i``. ``p`` comes and goes as the MMA's operand
        (``p_layout``, the inputs' dtype), or with ``P_F32`` as the softmax gives it
        (float32, ``s_layout``), cast at the top of the trip."""
        prev = (j - 1) % STAGES
        mbarrier.wait(v_bar.index(prev), ((j - 1) // STAGES) & 1)
        if P_F32:
            p = gl.convert_layout(p.to(k_desc.dtype), p_layout)
        acc = warpgroup_mma(p, v_smem.index(prev), acc, is_async=True)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))[0]
        s = _scores_issue(q_smem, k_smem, k_bar, zero_s, j, STAGES)
        # Tile j-1's buffers are free (its P V and scores are done): refill them with tile
        # j-1+STAGES under tile j's score product, whose wait the refill's work then fills
        # (after the softmax it sat on the warps' path: 0.7-4.9% slower, NOTES v55). (By
        # the slot index computed above: 8 fewer instructions, v54.)
        _issue_kv_at(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, FULL_IDX, PART_IDX,
                     j - 1 + STAGES, prev, prev, n_full, n_tiles, full_start, part_start,
                     run_offset, k_row0, LAYOUT_BLOCK, BLOCK_N, ROW_RUNS, HAS_PARTIAL)
        s = _scores_done(s, j, True, n_full, part_start, PART_IDX, PART_CODE, q_start, Nk,
                         LAYOUT_BLOCK, BLOCK_M, BLOCK_N, MASKED, ANTICAUSAL, s_layout)
        if PADDED:
            s = mask_padding(s, j, n_full, full_start, part_start, FULL_IDX, PART_IDX,
                             run_offset, kpm_row, first_padding, Nk, LAYOUT_BLOCK, BLOCK_N,
                             ROW_RUNS, HAS_PARTIAL, s_layout)
        # A masked tile (partial or padded) can leave a row at -inf: the guard.
        p, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale, MASKED or PADDED, LAZY,
                                           SLACK)
        acc = _rescale_rows(acc, alpha, o_layout, LAZY)
        if not P_F32:
            p = gl.convert_layout(p.to(k_desc.dtype), p_layout)
        return acc, p, m_i, l_i

    @gluon.jit
    def _row_scores(acc, m_i, l_i, q_smem, k_smem, v_smem, k_bar, v_bar, zero_s, k_desc,
                    v_desc, FULL_IDX, PART_IDX, PART_CODE, n_full, n_tiles, full_start,
                    part_start, run_offset, k_row0, q_start, Nk, qk_scale, kpm_row,
                    first_padding, LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr,
                    BLOCK_N: gl.constexpr, STAGES: gl.constexpr, ROW_RUNS: gl.constexpr,
                    HAS_PARTIAL: gl.constexpr, HAS_PADDING: gl.constexpr,
                    ANTICAUSAL: gl.constexpr, P_F32: gl.constexpr, s_layout: gl.constexpr,
                    o_layout: gl.constexpr, p_layout: gl.constexpr,
                    LAZY: gl.constexpr = False, SLACK: gl.constexpr = 8.0):
        """A query tile's walk of ``n_tiles`` (> 0) key tiles up to its last tile's
        softmax: every tile's scores and every ``P V`` but the last, whose P it returns
        (``p_layout``, the inputs' dtype) with ``acc, m_i, l_i``. Its first ``STAGES - 1``
        tiles were issued into the first buffers; it issues the rest, each into the
        buffers of the tile ``STAGES`` before it, once that tile's ``P V`` has read
        them."""
        dtype: gl.constexpr = k_desc.dtype
        s = _scores_issue(q_smem, k_smem, k_bar, zero_s, 0, STAGES)
        _issue_kv(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, FULL_IDX, PART_IDX,
                  STAGES - 1, n_full, n_tiles, full_start, part_start, run_offset, k_row0,
                  LAYOUT_BLOCK, BLOCK_N, STAGES, ROW_RUNS, HAS_PARTIAL)
        s = _scores_done(s, 0, n_full == 0, n_full, part_start, PART_IDX, PART_CODE, q_start,
                         Nk, LAYOUT_BLOCK, BLOCK_M, BLOCK_N, HAS_PARTIAL, ANTICAUSAL, s_layout)
        if HAS_PADDING:
            s = mask_padding(s, 0, n_full, full_start, part_start, FULL_IDX, PART_IDX,
                             run_offset, kpm_row, first_padding, Nk, LAYOUT_BLOCK, BLOCK_N,
                             ROW_RUNS, HAS_PARTIAL, s_layout)
        p, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale, HAS_PARTIAL or HAS_PADDING)
        if not P_F32:
            p = gl.convert_layout(p.to(dtype), p_layout)
        # Full tiles, then partial ones: two loops, so that the mask's registers and
        # instructions stay out of the full tiles' loop. After a full tile 0 no row
        # is at -inf, so the full loop needs no guard either (but for key padding,
        # whose mask can reach any tile).
        for j in range(1, n_full):
            acc, p, m_i, l_i = _step(
                acc, p, m_i, l_i, j, q_smem, k_smem, v_smem, k_bar, v_bar, zero_s,
                k_desc, v_desc, FULL_IDX, PART_IDX, PART_CODE, n_full, n_tiles, full_start,
                part_start, run_offset, k_row0, q_start, Nk, qk_scale, kpm_row,
                first_padding, LAYOUT_BLOCK, BLOCK_M, BLOCK_N, STAGES, ROW_RUNS,
                HAS_PARTIAL, False, HAS_PADDING, ANTICAUSAL, s_layout, o_layout,
                p_layout, P_F32, LAZY, SLACK)
        if HAS_PARTIAL:
            if P_F32:
                p = gl.convert_layout(p.to(dtype), p_layout)
            for j in range(gl.maximum(n_full, 1), n_tiles):
                acc, p, m_i, l_i = _step(
                    acc, p, m_i, l_i, j, q_smem, k_smem, v_smem, k_bar, v_bar, zero_s,
                    k_desc, v_desc, FULL_IDX, PART_IDX, PART_CODE, n_full, n_tiles,
                    full_start, part_start, run_offset, k_row0, q_start, Nk, qk_scale,
                    kpm_row, first_padding, LAYOUT_BLOCK, BLOCK_M, BLOCK_N, STAGES,
                    ROW_RUNS, HAS_PARTIAL, True, HAS_PADDING, ANTICAUSAL, s_layout,
                    o_layout, p_layout, False, LAZY, SLACK)
        return acc, p, m_i, l_i

    @gluon.jit
    def hopper_forward_kernel(
            O, LSE, FULL_IDX, PART_IDX, PART_CODE, SCHED, WS_O, WS_LSE, KPM, KV_LIMITS, q_desc,
            k_desc, v_desc, o_desc, qk_scale, stride_ob, stride_oh, stride_on,
            H, H_KV, N, Nk, NUM_Q_BLOCKS, LAYOUT_HEADS, WS_SLOTS, stride_kpm_b, stride_lim_b,
            PROGRAMS_PER_GROUP, FILL_FROM, CHUNKS, REP, GROUP,
            LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
            D: gl.constexpr, STAGES: gl.constexpr, ROW_RUNS: gl.constexpr,
            HAS_PARTIAL: gl.constexpr, HAS_PADDING: gl.constexpr, TMA_STORE: gl.constexpr,
            FILL: gl.constexpr, ANTICAUSAL: gl.constexpr, P_F32: gl.constexpr,
            LAZY_RESCALE: gl.constexpr, RESCALE_SLACK: gl.constexpr, num_warps: gl.constexpr):
        """Program (schedule entry, query tile) x (batch, head repeat), as the Triton
        forward's, on a (programs, ``REP`` head repeats, batch) grid (:func:`_own_item`);
        ``GROUP`` query heads share a key head (H // H_KV). q/k/v/o_desc: descriptors over
        the (B*H*N, D) and (B*H_KV*Nk, D) rows of contiguous q, k, v, o; O (B, H, N, D),
        contiguous; LSE (B, H, N) float32 base 2. Query rows past N and key rows past Nk are
        read (from the next head, or zeros past the end) but never stored, and never
        counted: the ragged last key block is always a partial one, masked to ``< Nk``. With
        ``HAS_PADDING``, ``KPM`` (B, Nk) int8 (1 = padding key) and ``KV_LIMITS``
        (``Layout.padding_limits``) with their batch strides: the walk stops after the
        sequence's last real key, and the tiles that reach its first padding key mask their
        padding keys. With ``FILL`` the grid is 1-D and fills its last wave
        (:data:`FILL_LAST_WAVE`): the groups from ``FILL_FROM`` on run each of their
        ``PROGRAMS_PER_GROUP`` programs as ``CHUNKS`` chunks after every whole program, each
        chunk's result going to the workspace (:func:`fill_slot`); without, those three are
        never read. ``ANTICAUSAL``: the layout may have anti-causal partial blocks (False
        leaves their mask's branch out, which made ptxas spill at D=64). ``P_F32``
        (:func:`carries_p_f32`): the full tiles' loop carries P in float32, cast at the top
        of a trip (``_step``). ``LAZY_RESCALE`` (:func:`lazy_rescale`): a row's maximum
        moves only past ``RESCALE_SLACK`` (:data:`LAZY_RESCALE`).

        The loop runs tile j's ``P V`` before tile j+1's scores (the first tile's scores
        peeled off ahead of it), each MMA waited at once; the buffers of tile j are
        refilled with tile j + STAGES once both have read them."""
        in_group, pid_g, b, r, chunk, chunks = _own_item(PROGRAMS_PER_GROUP, FILL_FROM, CHUNKS,
                                                         REP, FILL)
        entry, h, q_block, q_start = _own_coords(in_group, r, SCHED, NUM_Q_BLOCKS,
                                                 LAYOUT_HEADS, REP, LAYOUT_BLOCK, BLOCK_M)
        k_row0 = (b * H_KV + h // GROUP) * Nk
        full_start, n_full, part_start, n_tiles = _row_walk(
            entry, b, KV_LIMITS, stride_lim_b, LAYOUT_BLOCK, BLOCK_N, HAS_PARTIAL, HAS_PADDING,
            chunk, chunks, FILL)
        kpm_row, first_padding = _padding(KPM, KV_LIMITS, b, stride_kpm_b, stride_lim_b,
                                          LAYOUT_HEADS * NUM_Q_BLOCKS, Nk, HAS_PADDING)
        run_offset = _run_offset(FULL_IDX, full_start, n_full, LAYOUT_BLOCK, ROW_RUNS)

        dtype: gl.constexpr = q_desc.dtype
        s_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, BLOCK_N, 16])
        o_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, D, 16])
        p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout,
                                                     k_width=2)
        rows_s: gl.constexpr = gl.SliceLayout(1, s_layout)
        rows_o: gl.constexpr = gl.SliceLayout(1, o_layout)

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

        mbarrier.expect(q_bar, q_desc.block_type.nbytes)
        tma_load(q_desc, [(b * H + h) * N + q_start, 0], q_bar, q_smem)
        for t in gl.static_range(STAGES - 1):
            _issue_kv(k_desc, v_desc, k_smem, v_smem, k_bar, v_bar, FULL_IDX, PART_IDX, t,
                      n_full, n_tiles, full_start, part_start, run_offset, k_row0,
                      LAYOUT_BLOCK, BLOCK_N, STAGES, ROW_RUNS, HAS_PARTIAL)

        zero_s = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, s_layout)
        acc = gl.zeros([BLOCK_M, D], gl.float32, o_layout)
        m_i = gl.full([BLOCK_M], float("-inf"), gl.float32, rows_s)
        l_i = gl.zeros([BLOCK_M], gl.float32, rows_s)
        mbarrier.wait(q_bar, 0)
        if n_tiles > 0:  # a row with no key block skips to the epilogue (O = 0)
            acc, p, m_i, l_i = _row_scores(
                acc, m_i, l_i, q_smem, k_smem, v_smem, k_bar, v_bar, zero_s, k_desc, v_desc,
                FULL_IDX, PART_IDX, PART_CODE, n_full, n_tiles, full_start, part_start,
                run_offset, k_row0, q_start, Nk, qk_scale, kpm_row, first_padding,
                LAYOUT_BLOCK, BLOCK_M, BLOCK_N, STAGES, ROW_RUNS, HAS_PARTIAL, HAS_PADDING,
                ANTICAUSAL, P_F32, s_layout, o_layout, p_layout, LAZY_RESCALE, RESCALE_SLACK)
            last = n_tiles - 1
            mbarrier.wait(v_bar.index(last % STAGES), (last // STAGES) & 1)
            acc = warpgroup_mma(p, v_smem.index(last % STAGES), acc, is_async=True)
            acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))[0]

        mbarrier.invalidate(q_bar)
        for i in gl.static_range(STAGES):
            mbarrier.invalidate(k_bar.index(i))
            mbarrier.invalidate(v_bar.index(i))
        out, lse = finish_rows(acc, m_i, l_i, o_layout)
        in_group, pid_g, b, r, chunk, chunks = _own_item(PROGRAMS_PER_GROUP, FILL_FROM, CHUNKS,
                                                         REP, FILL, FILL)
        entry, h, q_block, q_start = _own_coords(in_group, r, SCHED, NUM_Q_BLOCKS,
                                                 LAYOUT_HEADS, REP, LAYOUT_BLOCK, BLOCK_M)
        split_slot, pid_g = fill_slot(entry, in_group, pid_g, chunk, chunks, FILL_FROM,
                                      LAYOUT_BLOCK // BLOCK_M, FILL)
        # (Every MMA reading Q has completed: its buffer may hold the output.)
        store_rows(out, lse, q_smem, o_desc, O, LSE, WS_O, WS_LSE, split_slot, b, h, q_block,
                   q_start, pid_g, stride_ob, stride_oh, stride_on, H, N, WS_SLOTS,
                   LAYOUT_BLOCK, TMA_STORE, True, s_layout, o_layout)

    @gluon.jit
    def finish_rows(acc, m_i, l_i, o_layout: gl.constexpr):
        """The output ``acc / l_i`` (BLOCK_M, D) and base-2 log-sum-exp of the rows whose
        online softmax ended at maxima ``m_i`` and sums ``l_i``; rows with no key get O = 0
        and lse = -inf (never NaN)."""
        has_keys = l_i > 0.0
        l_safe = gl.where(has_keys, l_i, 1.0)
        # One division a row, not one an element (64 a thread at D=128, on the ping-pong
        # forward's path between two work items; the same bits on an H200, NOTES v35).
        inv = gl.convert_layout(1.0 / l_safe, gl.SliceLayout(1, o_layout))
        out = acc * gl.expand_dims(inv, 1)
        lse = gl.where(has_keys, m_i + gl.log2(l_safe), float("-inf"))
        return out, lse

    @gluon.jit
    def store_rows(out, lse, o_smem, o_desc, O, LSE, WS_O, WS_LSE, split_slot, b, h, q_block,
                   q_start, pid_g, stride_ob, stride_oh, stride_on, H, N, WS_SLOTS,
                   LAYOUT_BLOCK: gl.constexpr, TMA_STORE: gl.constexpr,
                   WAIT_STORE: gl.constexpr, s_layout: gl.constexpr,
                   o_layout: gl.constexpr):
        """The forward's epilogue for query rows ``q_start`` on (``out`` (BLOCK_M, D)
        float32 and ``lse``, :func:`finish_rows`): O and LSE, or for a split row's chunk
        (its schedule entry's ``split_slot`` not -1) the float32 workspace (pid_g, slot,
        row in block, D) that ``launch.forward`` merges. With ``TMA_STORE`` a tile wholly
        inside N leaves through ``o_smem`` (a free (BLOCK_M, D) buffer of O's dtype) by one
        TMA store, which has read the buffer on return with ``WAIT_STORE`` (else the caller
        waits, ``tma.store_wait(0)``, before it writes there again); a tile running past N
        would spill into the next head's rows, so it takes pointer stores. Shared by this
        module's kernel and ``hopper_pingpong``'s."""
        BLOCK_M: gl.constexpr = out.shape[0]
        D: gl.constexpr = out.shape[1]
        dtype: gl.constexpr = o_smem.dtype
        rows_s: gl.constexpr = gl.SliceLayout(1, s_layout)
        rows_o: gl.constexpr = gl.SliceLayout(1, o_layout)
        offs_m = q_start + gl.arange(0, BLOCK_M, layout=rows_o)
        offs_d = gl.arange(0, D, layout=gl.SliceLayout(0, o_layout))
        lse_m = q_start + gl.arange(0, BLOCK_M, layout=rows_s)
        # (offs_d < D is all true: it gives the row mask the tile's full shape.)
        o_mask = gl.expand_dims(offs_m < N, 1) & gl.expand_dims(offs_d < D, 0)
        # The branch on the entry's slot (-1 unless the row is split) stays even for
        # layouts without split rows: leaving the workspace branch out at compile time (a
        # HAS_SPLITS constexpr, as the Triton forward has) crashed Triton 3.6's Gluon
        # lowering.
        if split_slot < 0:
            if TMA_STORE and q_start + BLOCK_M <= N:
                o_smem.store(out.to(dtype))
                fence_async_shared()
                tma_store(o_desc, [(b * H + h) * N + q_start, 0], o_smem)
                if WAIT_STORE:
                    tma.store_wait(0)
            else:
                O += b.to(gl.int64) * stride_ob + h.to(gl.int64) * stride_oh
                gl.store(O + gl.expand_dims(offs_m, 1) * stride_on + gl.expand_dims(offs_d, 0),
                         out.to(dtype), mask=o_mask)
            gl.store(LSE + (b * H + h).to(gl.int64) * N + lse_m, lse, mask=lse_m < N)
        else:
            ws_row = ((pid_g.to(gl.int64) * WS_SLOTS + split_slot) * LAYOUT_BLOCK
                      - q_block * LAYOUT_BLOCK)
            gl.store(WS_O + gl.expand_dims(ws_row + offs_m, 1) * D + gl.expand_dims(offs_d, 0),
                     out, mask=o_mask)
            gl.store(WS_LSE + ws_row + lse_m, lse, mask=lse_m < N)


def gluon_choice() -> str:
    """``SPARSEFLASH_GLUON`` (``auto``, ``0`` or ``1``; default ``auto``), which the
    forward here and the dK/dV kernel of ``hopper_backward`` both follow."""
    choice = os.environ.get("SPARSEFLASH_GLUON", "auto")
    if choice not in ("auto", "0", "1"):
        raise ValueError(f"SPARSEFLASH_GLUON must be auto, 0 or 1, not {choice!r}")
    return choice


def usable(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout_block: int,
           dropout_p: float, has_padding: bool, has_partial: bool) -> bool:
    """Whether ``launch.forward`` runs a Gluon forward. Only where the inputs allow it:
    an sm_90 GPU, float16 or bfloat16, D of 64 or 128, a layout block that is a multiple
    of the tiles, and contiguous q, k, v (their rows are read through one descriptor
    each); with dropout only where ``hopper_pingpong.chosen`` takes the call (this
    module's kernel has none). Then ``SPARSEFLASH_GLUON`` decides: ``auto`` (the default)
    everywhere, but for D=128 layouts with partial blocks (``has_partial``: causal
    diagonals, ragged ends) when ``hopper_pingpong`` is turned off: there the Triton
    forward measured 2.5% faster than this module's kernel (module docstring); ``1``
    everywhere it can; ``0`` never."""
    from . import hopper_pingpong  # (it imports this module)

    choice = gluon_choice()
    if choice == "0" or (choice == "auto" and q.shape[-1] == 128 and has_partial
                         and not hopper_pingpong.chosen(128)):
        return False
    if dropout_p > 0 and not hopper_pingpong.chosen(q.shape[-1], dropout=True):
        return False
    return inputs_fit((q, k, v), layout_block, (BLOCK_M, BLOCK_N), 0.0, False)


def inputs_fit(tensors, layout_block: int, tiles, dropout_p: float,
               has_padding: bool) -> bool:
    """What the Gluon kernels here and in ``hopper_backward`` and ``hopper_fused`` need of
    their inputs (the first of ``tensors`` is q): Gluon's Hopper API outside the
    interpreter, an sm_90 GPU, float16 or bfloat16, D of 64 or 128, no dropout and no key
    padding (for the kernels that lack them: the others pass 0 and False), a layout
    block that each of ``tiles`` divides, and every tensor contiguous with a 16-byte
    aligned address (its rows are read through one descriptor)."""
    if not AVAILABLE or os.environ.get("TRITON_INTERPRET", "0") == "1":
        return False
    q = tensors[0]
    if (q.device.type != "cuda" or q.dtype not in (torch.float16, torch.bfloat16)
            or q.shape[-1] not in (64, 128) or dropout_p > 0 or has_padding
            or any(layout_block % tile for tile in tiles)
            or fastlaunch.device_major(q.device.index) != 9):
        return False
    return all(t.is_contiguous() and t.data_ptr() % 16 == 0 for t in tensors)


def compile_options(head_dim: int) -> dict:
    """Launch options beyond the constexprs: at D=64 a cap of 128 registers a thread, the
    most at which two programs (256 threads each) share an SM's 64K registers. Left to
    itself ptxas lands on either side of the line (127-129 on run walks, depending on the
    launch's specialisations; ~166 with partial blocks) and the kernel runs 35% slower
    with one program an SM (NOTES v18). Capped, run walks spill nothing and partial-block
    layouts spill 16 bytes, which measured faster than the uncapped kernel (causal: 1.36
    against 1.61 ms)."""
    return dict(maxnreg=128) if head_dim == 64 else {}


@functools.lru_cache(maxsize=None)
def _shared_layout(rows: int, cols: int, dtype: torch.dtype):
    """The swizzled shared-memory layout of a (rows, cols) tile (cached: building it is
    host time on every call)."""
    gl_dtype = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16,
                torch.float32: gl.float32}[dtype]  # float32: the fused backward's dQ sum
    return gl.NVMMASharedLayout.get_default_for([rows, cols], gl_dtype)


class _Address:
    """What a launch reads of a descriptor's base tensor: its address (``data_ptr``, to
    encode the descriptor) and dtype (to specialise the kernel on the first launch)."""
    __slots__ = ("address", "dtype")

    def __init__(self, address: int, dtype: torch.dtype):
        self.address, self.dtype = address, dtype

    def data_ptr(self) -> int:
        return self.address


#: Descriptors by (address, rows of D, D, dtype, tile rows, tile columns): all a
#: descriptor is made of.
_DESCRIPTORS: dict = {}
_MAX_DESCRIPTORS = 256


def descriptor(t: torch.Tensor, rows: int, cols: int | None = None):
    """A TMA descriptor over the (numel // D, D) rows of contiguous ``t``, in tiles of
    ``rows`` rows and ``cols`` columns (default: all D; the Gluon kernels' operands).

    Kept by what it is made of, with the address in place of the tensor (so the cache
    holds no memory alive): building one runs the descriptor's checks, ~2 us of host time,
    four per launch, while the caching allocator hands the same addresses to each step's
    activations. A later tensor at the same address, rows and dtype gets the same
    descriptor, which is then exactly right for it."""
    D = t.shape[-1]
    cols = D if cols is None else cols
    key = (t.data_ptr(), t.numel() // D, D, t.dtype, rows, cols)
    found = _DESCRIPTORS.get(key)
    if found is None:
        if len(_DESCRIPTORS) >= _MAX_DESCRIPTORS:
            _DESCRIPTORS.clear()
        found = _DESCRIPTORS[key] = TensorDescriptor(
            _Address(key[0], t.dtype), [key[1], D], [D, 1], [rows, cols],
            _shared_layout(rows, cols, t.dtype))
    return found


if AVAILABLE:
    # Launched past Triton's per-call argument binding after the first call of each
    # signature, as the Triton kernels are (40-75 us of host time a call otherwise, which
    # a short sparse forward does not hide; NOTES v18).
    _KERNEL = fastlaunch.Kernel(hopper_forward_kernel)


class BoundForward(NamedTuple):
    """A bound Gluon forward: the launch, the rows of its q and o descriptors' tiles,
    whether it takes a work-item counter (``hopper_pingpong``'s persistent programs), and
    its ``(fill_from, chunks)`` (:func:`fill_plan` or ``hopper_pingpong.fill_plan``;
    chunks 1: none)."""
    launch: "fastlaunch.Launch"
    q_rows: int
    counter: bool = False
    fill: tuple = (0, 1)


def carries_p_f32(has_partial: bool, has_padding: bool, anticausal: bool) -> bool:
    """Whether :func:`hopper_forward_kernel` carries P in float32 through its full tiles'
    loop, cast at the top of a trip (its constexpr ``P_F32``, set from this): with partial
    blocks, where P carried in the MMA's dtype through the two loops made ptxas (Triton
    3.6) add 32 byte swaps (PRMT) a trip to the full tiles' serial path; but not with key
    padding or anti-causal blocks, whose variants it made spill more (NOTES v50)."""
    return bool(has_partial) and not has_padding and not anticausal


def lazy_rescale(head_dim: int, p_f32: bool, row_keys: int) -> bool:
    """Whether :func:`hopper_forward_kernel` takes :data:`LAZY_RESCALE` (its constexpr of
    that name) at this head dim, carrying P in float32 or not (:func:`carries_p_f32`), on
    rows of ``row_keys`` keys on average (``row_blocks`` layout blocks of
    :func:`bind_forward`): two variants at most, whatever the sequence length."""
    return (bool(LAZY_RESCALE) and head_dim == 64 and p_f32
            and row_keys >= LAZY_RESCALE_ROW_KEYS)


def bind_forward(q, k, o, programs, groups, num_q_blocks, layout_heads, ws_slots, layout_block,
                 row_runs, has_partial, has_padding=False, stride_kpm_b=0,
                 stride_lim_b=0, has_dropout=False, row_blocks=0,
                 uniform_blocks=0, anticausal=True) -> BoundForward:
    """The Gluon forward bound to these shapes, on ``programs`` schedule entries
    (``launch.forward`` checked :func:`usable` and keeps the result for calls of the same
    shapes), for key padding with the batch strides of its mask and walk limits, and for
    dropout; :func:`forward` launches it. Where ``hopper_pingpong.chosen`` takes the call
    (D=128 by default, and D=64 calls with partial blocks whose rows, ``row_blocks``
    layout blocks on average, reach ``hopper_pingpong.D64_MASKED_ROW_KEYS`` keys, where
    :func:`hopper_forward_kernel` would not carry P in float32 (:func:`carries_p_f32`); with
    dropout, wherever :func:`usable` let the call through) that is its warp-specialised
    kernel, which may take the last groups' items in chunks where the layout's rows are
    all ``uniform_blocks`` long (``hopper_pingpong.fill_plan``; 0 where they are not, or
    some are split: ``Layout.uniform_blocks``), elsewhere :func:`hopper_forward_kernel`,
    which may do the same with its last groups' programs (:func:`fill_plan`), and which
    leaves the anti-causal mask out of its code where ``anticausal`` is False (no partial
    block of the layout is anti-causal: ``LayoutMeta.has_partial`` < 2), and rescales
    lazily on rows of ``row_blocks`` blocks where :func:`lazy_rescale` says so (the
    ping-pong kernel where ``hopper_pingpong.lazy_rescale`` does)."""
    from . import hopper_pingpong  # (it imports this module)

    B, H, N, D = q.shape
    args = (q, k, o, programs, groups, num_q_blocks, layout_heads, ws_slots, layout_block,
            row_runs, has_partial, has_padding, stride_kpm_b, stride_lim_b)
    own_p_f32 = carries_p_f32(has_partial, has_padding, anticausal)
    masked_row_keys = row_blocks * layout_block if has_partial and not own_p_f32 else 0
    if hopper_pingpong.chosen(D, dropout=has_dropout, masked_row_keys=masked_row_keys):
        fill = hopper_pingpong.fill_plan(q, programs, groups, layout_block, uniform_blocks)
        return BoundForward(hopper_pingpong.bind_forward(*args, has_dropout=has_dropout,
                                                         fill=fill,
                                                         row_keys=row_blocks * layout_block),
                            hopper_pingpong.BLOCK_M, True, fill)
    H_kv, Nk = k.shape[1], k.shape[2]
    per_group = programs * (layout_block // BLOCK_M)
    fill_from, chunks = fill = fill_plan(q, programs, groups, layout_block, uniform_blocks)
    rep = H // layout_heads  # query heads a layout head serves, in each sequence
    if chunks > 1:  # a 1-D grid, the chunks' results in programs * chunks slots a group
        grid = (schedule.filled_programs(groups, per_group, fill),)
        ws_slots = programs * chunks
    else:  # (programs, head repeat, batch): a group's batch and repeat without a division
        grid = (per_group, rep, B)
    launch = _KERNEL.bind(
        grid, (q.dtype,),
        (*o.stride()[:3], H, H_kv, N, Nk, num_q_blocks, layout_heads, ws_slots, stride_kpm_b,
         stride_lim_b, per_group, fill_from, chunks, rep, H // H_kv),
        LAYOUT_BLOCK=layout_block, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, D=D, STAGES=STAGES,
        ROW_RUNS=row_runs, HAS_PARTIAL=has_partial, HAS_PADDING=has_padding,
        TMA_STORE=TMA_STORE, FILL=chunks > 1, ANTICAUSAL=bool(has_partial and anticausal),
        P_F32=own_p_f32, LAZY_RESCALE=lazy_rescale(D, own_p_f32, row_blocks * layout_block),
        RESCALE_SLACK=RESCALE_SLACK,
        num_warps=NUM_WARPS, **compile_options(D))
    return BoundForward(launch, BLOCK_M, fill=fill)


def fill_plan(q: torch.Tensor, programs: int, groups: int, layout_block: int,
              uniform_blocks: int) -> tuple:
    """-> ``(fill_from, chunks)`` for :func:`bind_forward`'s own kernel:
    ``schedule.fill_last_wave`` of its programs (``programs`` schedule entries of
    ``layout_block // BLOCK_M`` query tiles, each walking ``uniform_blocks`` blocks
    (``Layout.uniform_blocks``), for each of ``groups``), two an SM at D=64
    (``shared``: 128 registers a thread and 112 KB of shared memory a program), one at
    D=128; ``(groups, 1)`` (no chunks) with :data:`FILL_LAST_WAVE` off and for rows of
    unequal length (``uniform_blocks`` 0)."""
    if not FILL_LAST_WAVE or uniform_blocks == 0:
        return groups, 1
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    return schedule.fill_last_wave(groups, programs * (layout_block // BLOCK_M),
                                   uniform_blocks * (layout_block // BLOCK_N), sms,
                                   shared=q.shape[-1] == 64)


def forward(bound: BoundForward, q, k, v, o, lse, full_idx, part_idx, part_code, sched, ws_o,
            ws_lse, kpm, kv_limits, qk_scale, seed=None, keep_threshold=0, drop_scale=1.0):
    """Launch ``bound`` (:func:`bind_forward`): writes ``o``, ``lse`` and the workspace of
    split rows. ``kpm`` (B, Nk) int8 and ``kv_limits`` are the key padding's mask and
    walk limits where ``bound`` was bound for padding, else any int32 tensors (never
    read); ``seed`` ((1,) int64), ``keep_threshold`` and ``drop_scale`` (1 / (1 - p))
    likewise dropout's, where it was bound for dropout."""
    tensors = (o, lse, full_idx, part_idx, part_code, sched, ws_o, ws_lse, kpm, kv_limits)
    descriptors = (descriptor(q, bound.q_rows), descriptor(k, BLOCK_N), descriptor(v, BLOCK_N),
                   descriptor(o, bound.q_rows), qk_scale)
    if bound.counter:  # hopper_pingpong's kernel
        tensors += (torch.zeros(1, dtype=torch.int32, device=q.device),
                    kv_limits if seed is None else seed)
        descriptors += (keep_threshold, drop_scale)
    bound.launch(tensors, descriptors)
