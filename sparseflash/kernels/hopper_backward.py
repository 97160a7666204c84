"""The backward's dK/dV kernel on Hopper GPUs, written in Gluon (see ``hopper.py``).

Same column schedule, tables, masks and outputs as ``backward.attention_dkdv_kernel``
(one program per (key tile, batch * kv head) walks the query tiles its layout column
lists, for every query head of its GQA group); what differs is the pipeline. Q and dO
tiles arrive by TMA in a ring of ``STAGES`` buffers, the addresses read from the table
when the copy is issued; per query tile the program issues ``S^T = K Q^T`` and
``dP^T = V dO^T`` together and waits for ``S^T`` only; ``P^T`` goes from registers into
``dV += P^T dO`` while ``dP^T`` finishes; ``dS^T`` is stored once to shared memory, the
left operand of ``dK += dS^T Q``, which stays in flight into the next tile.

On an H200 at D=128 (NOTES v19, ``benchmarks/sessions/s17_fused_bwd.py``, its "no-dQ"
mode) this form took 7.4 ms where the Triton dK/dV kernel took 8.4 (dense, N=16K,
16 heads): the Triton kernel spills at D=128; this one's 64 x 64 tile on one warp group
takes 255 registers and spills a word (ptxas, Triton 3.6; 124 bytes on layouts with
partial blocks). In the library, on an H200 and an H100, its dK/dV took 10-13% less time
on dense and causal layouts at D=128, the same on short columns, and 15-30% more at D=64
(NOTES v19): :func:`usable` takes it by default at D=128.
Gluon has no interpreter: ``tests/test_hopper_compile.py`` compiles it for sm_90 on any
machine and ``tests/test_gpu.py -k gluon_backward`` runs it.
"""

from __future__ import annotations

import torch

from . import fastlaunch, hopper
from .common import ENTRY_SLOT

AVAILABLE = hopper.AVAILABLE

#: Query rows per step, key rows per program, Q/dO buffers, warps (one warp group).
BLOCK_M, BLOCK_N, STAGES, NUM_WARPS = 64, 64, 2, 4

if AVAILABLE:
    gl = hopper.gl
    gluon = hopper.gluon
    mbarrier, tma_load = hopper.mbarrier, hopper.tma_load
    warpgroup_mma, warpgroup_mma_wait = hopper.warpgroup_mma, hopper.warpgroup_mma_wait
    from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared,
                                                                  warpgroup_mma_init)

    @gluon.jit
    def _query_tile(FULL_IDX, PART_IDX, j, n_full, full_start, part_start, ok,
                    LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr,
                    HAS_PARTIAL: gl.constexpr):
        """First row (within the head) of the column's query tile ``j``: full blocks
        first, then partial ones, each block ``LAYOUT_BLOCK // BLOCK_M`` tiles."""
        SUB: gl.constexpr = LAYOUT_BLOCK // BLOCK_M
        block = gl.load(FULL_IDX + full_start + j // SUB, mask=ok & (j < n_full), other=0)
        if HAS_PARTIAL:
            part = gl.load(PART_IDX + part_start + (j - n_full) // SUB,
                           mask=ok & (j >= n_full), other=0)
            block = gl.where(j < n_full, block, part)
        return block * LAYOUT_BLOCK + (j % SUB) * BLOCK_M

    @gluon.jit
    def _issue_q_do(q_desc, do_desc, q_smem, do_smem, q_bar, do_bar, FULL_IDX, PART_IDX, t,
                    n_col, n_full, n_walk, full_start, part_start, q_row0, N,
                    LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, STAGES: gl.constexpr,
                    HAS_PARTIAL: gl.constexpr):
        """Start the copies of the walk's tile ``t`` (none past the last) into buffer
        ``t % STAGES``. The walk runs the column's ``n_col`` tiles for each head of the
        group in turn: tile t is head ``t // n_col``'s tile ``t % n_col``."""
        ok = t < n_walk
        cols = gl.maximum(n_col, 1)
        j = t % cols
        q_start = _query_tile(FULL_IDX, PART_IDX, j, n_full, full_start, part_start, ok,
                              LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL)
        row = q_row0 + (t // cols) * N + q_start
        slot = t % STAGES
        mbarrier.expect(q_bar.index(slot), q_desc.block_type.nbytes, pred=ok)
        tma_load(q_desc, [row, 0], q_bar.index(slot), q_smem.index(slot), pred=ok)
        mbarrier.expect(do_bar.index(slot), do_desc.block_type.nbytes, pred=ok)
        tma_load(do_desc, [row, 0], do_bar.index(slot), do_smem.index(slot), pred=ok)

    @gluon.jit
    def _dkdv_step(dk, dv, t, j, q_smem, do_smem, ds_smem, k_smem, v_smem, q_bar, do_bar,
                   q_desc, do_desc, LSE, DELTA, FULL_IDX, PART_IDX, PART_CODE, n_col, n_full,
                   n_walk, full_start, part_start, q_row0, head_row, start_n, N, Nk, qk_scale,
                   LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                   STAGES: gl.constexpr, HAS_PARTIAL: gl.constexpr,
                   st_layout: gl.constexpr, op_layout: gl.constexpr):
        """Walk tile ``t`` (the column's tile ``j`` of the head whose rows start at
        ``head_row``): dV and dK from its Q and dO. On entry the last tile's dK is in
        flight; on return this tile's is (the last tile's buffers refilled meanwhile)."""
        dtype: gl.constexpr = q_desc.dtype
        slot = t % STAGES
        q_start = _query_tile(FULL_IDX, PART_IDX, j, n_full, full_start, part_start, True,
                              LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL)
        offs = head_row + q_start + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(0, st_layout))
        lse = gl.load(LSE + offs)
        delta = gl.load(DELTA + offs)
        zero = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, st_layout)
        mbarrier.wait(q_bar.index(slot), (t // STAGES) & 1)
        mbarrier.wait(do_bar.index(slot), (t // STAGES) & 1)
        st = warpgroup_mma(k_smem, q_smem.index(slot).permute((1, 0)), zero, use_acc=False,
                           is_async=True)
        dpt = warpgroup_mma(v_smem, do_smem.index(slot).permute((1, 0)), zero, use_acc=False,
                            is_async=True)
        # In flight: the last tile's dK, then S^T and dP^T. Wait for all but dP^T: the
        # last tile's products are done, so its buffers take tile t - 1 + STAGES.
        st, dk = warpgroup_mma_wait(num_outstanding=1, deps=(st, dk))
        _issue_q_do(q_desc, do_desc, q_smem, do_smem, q_bar, do_bar, FULL_IDX, PART_IDX,
                    t - 1 + STAGES, n_col, n_full, n_walk, full_start, part_start, q_row0, N,
                    LAYOUT_BLOCK, BLOCK_M, STAGES, HAS_PARTIAL)
        pt = gl.exp2(st * qk_scale - gl.expand_dims(lse, 0))
        if HAS_PARTIAL:
            if j >= n_full:  # a partial block's tile
                listed = part_start + (j - n_full) // (LAYOUT_BLOCK // BLOCK_M)
                pt = hopper.partial_select(pt, 0.0, gl.load(PART_CODE + listed), q_start,
                                           start_n, Nk, BLOCK_M, BLOCK_N, st_layout,
                                           KEYS_FIRST=True)
        p_op = gl.convert_layout(pt.to(dtype), op_layout)
        dv = warpgroup_mma(p_op, do_smem.index(slot), dv, is_async=True)
        dpt, p_op = warpgroup_mma_wait(num_outstanding=1, deps=(dpt, p_op))
        dst = pt * (dpt - gl.expand_dims(delta, 0))
        ds_smem.store(dst.to(dtype))  # the last tile's dK, which read it, has completed
        fence_async_shared()
        dk = warpgroup_mma(ds_smem, q_smem.index(slot), dk, is_async=True)
        dv = warpgroup_mma_wait(num_outstanding=1, deps=(dv,))
        return dk, dv

    @gluon.jit
    def _column(SCHED, H, H_KV, N, NUM_KV_BLOCKS, SCHED_HEADS, GROUP,
                LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                HAS_PARTIAL: gl.constexpr):
        """The program's column schedule entry (a pointer), batch, kv head, key block and
        first key row; where its column's full and partial block lists start, its number
        of full tiles and of all tiles, the walk's length over the GQA group's heads, and
        the group's first query row (in the (B*H*N, D) view)."""
        return _column_at(gl.program_id(0), gl.program_id(1), 0, 1, SCHED, H, H_KV, N,
                          NUM_KV_BLOCKS, SCHED_HEADS, GROUP, LAYOUT_BLOCK, BLOCK_M, BLOCK_N,
                          HAS_PARTIAL)

    @gluon.jit
    def _column_at(pid, pid_g, chunk, chunks, SCHED, H, H_KV, N, NUM_KV_BLOCKS, SCHED_HEADS,
                   GROUP, LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr,
                   BLOCK_N: gl.constexpr, HAS_PARTIAL: gl.constexpr,
                   CHUNKED: gl.constexpr = False):
        """:func:`_column` of the column program (``pid``, ``pid_g``) (``hopper._coords_at``),
        with ``CHUNKED`` of its chunk ``chunk`` of ``chunks`` (``hopper.chunk_walk``: the
        fused backward's programs that fill its last wave)."""
        entry, b, kv_h, kb, start_n = hopper._coords_at(pid, pid_g, SCHED, H_KV,
                                                        NUM_KV_BLOCKS, SCHED_HEADS,
                                                        LAYOUT_BLOCK, BLOCK_N)
        full_start, n_full, part_start, n_col = hopper._walk(entry, LAYOUT_BLOCK, BLOCK_M,
                                                             HAS_PARTIAL)
        if CHUNKED:
            full_start, n_full, part_start, n_col = hopper.chunk_walk(
                full_start, n_full, part_start, n_col, chunk, chunks, LAYOUT_BLOCK // BLOCK_M,
                HAS_PARTIAL)
        n_walk = GROUP * n_col
        q_row0 = (b * H + kv_h * GROUP) * N
        return (entry, b, kv_h, kb, start_n, full_start, part_start, n_full, n_col, n_walk,
                q_row0)

    @gluon.jit
    def store_dkdv(dk, dv, DK, DV, WS_DK, WS_DV, slot, ws_group, b, kv_h, kb, start_n, H_KV,
                   Nk, WS_SLOTS, LAYOUT_BLOCK: gl.constexpr, BLOCK_N: gl.constexpr,
                   D: gl.constexpr, kv_layout: gl.constexpr):
        """A key tile's dK and dV (float32, ``kv_layout``, dK already scaled) into DK, DV
        (B, H_KV, Nk, D) where ``slot`` is negative, or for a chunk of a split column into
        slot ``slot`` of group ``ws_group`` of the float32 workspace (group, slot, row in
        block, D), which ``launch.backward`` adds up. Rows past Nk are left out."""
        dtype: gl.constexpr = DK.dtype.element_ty
        offs_n = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(1, kv_layout))
        offs_d = gl.arange(0, D, layout=gl.SliceLayout(0, kv_layout))
        # (offs_d < D is all true: it gives the row mask the tile's full shape.)
        out_mask = gl.expand_dims(offs_n < Nk, 1) & gl.expand_dims(offs_d < D, 0)
        if slot < 0:
            rows = (b * H_KV + kv_h).to(gl.int64) * Nk + offs_n
            out = gl.expand_dims(rows, 1) * D + gl.expand_dims(offs_d, 0)
            gl.store(DK + out, dk.to(dtype), mask=out_mask)
            gl.store(DV + out, dv.to(dtype), mask=out_mask)
        else:
            ws_row = (ws_group.to(gl.int64) * WS_SLOTS + slot) * LAYOUT_BLOCK \
                - kb * LAYOUT_BLOCK
            ws = gl.expand_dims(ws_row + offs_n, 1) * D + gl.expand_dims(offs_d, 0)
            gl.store(WS_DK + ws, dk, mask=out_mask)
            gl.store(WS_DV + ws, dv, mask=out_mask)

    @gluon.jit
    def hopper_dkdv_kernel(
            DK, DV, LSE, DELTA, FULL_IDX, PART_IDX, PART_CODE, SCHED, WS_DK, WS_DV,
            q_desc, k_desc, v_desc, do_desc, qk_scale, sm_scale,
            H, H_KV, N, Nk, NUM_KV_BLOCKS, SCHED_HEADS, GROUP, WS_SLOTS,
            LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
            D: gl.constexpr, STAGES: gl.constexpr, HAS_PARTIAL: gl.constexpr,
            num_warps: gl.constexpr):
        """Program (column schedule entry, key tile) x (batch, kv head repeat), as the
        Triton kernel's scheduled programs. q/k/v/do_desc: descriptors over the
        (B*H*N, D) and (B*H_KV*Nk, D) rows of contiguous q, k, v, do; LSE (base 2) and
        DELTA: (B, H, N) float32; DK, DV: (B, H_KV, Nk, D), contiguous. Every query tile
        lies inside N (``usable`` requires N to be a multiple of the layout block); key
        rows past Nk are read (from the next head, or zeros) and never stored."""
        dtype: gl.constexpr = q_desc.dtype
        (entry, b, kv_h, kb, start_n, full_start, part_start, n_full, n_col, n_walk,
         q_row0) = _column(SCHED, H, H_KV, N, NUM_KV_BLOCKS, SCHED_HEADS, GROUP, LAYOUT_BLOCK,
                           BLOCK_M, BLOCK_N, HAS_PARTIAL)
        k_row = (b * H_KV + kv_h) * Nk + start_n

        # Key rows across the warp group, query columns along the tile.
        st_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, BLOCK_M, 16])
        kv_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, D, 16])
        op_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=kv_layout,
                                                      k_width=2)
        SWIZZLE: gl.constexpr = 128 if BLOCK_M * 2 >= 128 else BLOCK_M * 2
        ds_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=SWIZZLE,
                                                       element_bitwidth=16, rank=2)
        k_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, D], k_desc.layout)
        v_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, D], v_desc.layout)
        q_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, D], q_desc.layout)
        do_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, D], do_desc.layout)
        ds_smem = gl.allocate_shared_memory(dtype, [BLOCK_N, BLOCK_M], ds_layout)
        kv_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        q_bar = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        do_bar = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        mbarrier.init(kv_bar, count=1)
        for i in gl.static_range(STAGES):
            mbarrier.init(q_bar.index(i), count=1)
            mbarrier.init(do_bar.index(i), count=1)

        mbarrier.expect(kv_bar, k_desc.block_type.nbytes + v_desc.block_type.nbytes)
        tma_load(k_desc, [k_row, 0], kv_bar, k_smem)
        tma_load(v_desc, [k_row, 0], kv_bar, v_smem)
        for t in gl.static_range(STAGES - 1):
            _issue_q_do(q_desc, do_desc, q_smem, do_smem, q_bar, do_bar, FULL_IDX, PART_IDX,
                        t, n_col, n_full, n_walk, full_start, part_start, q_row0, N,
                        LAYOUT_BLOCK, BLOCK_M, STAGES, HAS_PARTIAL)
        dk = gl.zeros([BLOCK_N, D], gl.float32, kv_layout)
        dv = gl.zeros([BLOCK_N, D], gl.float32, kv_layout)
        mbarrier.wait(kv_bar, 0)
        # One loop over the group's heads and the column's tiles (full, then partial),
        # with dK in flight across its back edge only, and only where it runs at least
        # once: ptxas serialised every wgmma of the kernel when it found dK's registers
        # defined (by a loop's zero-trip path, or between two loops) while its wgmma could
        # be in flight.
        if n_walk > 0:
            cols = gl.maximum(n_col, 1)
            dk = warpgroup_mma_init(dk)
            for w in range(0, n_walk):
                j = w % cols
                dk, dv = _dkdv_step(
                    dk, dv, w, j, q_smem, do_smem, ds_smem, k_smem, v_smem, q_bar, do_bar,
                    q_desc, do_desc, LSE, DELTA, FULL_IDX, PART_IDX, PART_CODE, n_col, n_full,
                    n_walk, full_start, part_start, q_row0, q_row0 + (w // cols) * N, start_n,
                    N, Nk, qk_scale, LAYOUT_BLOCK, BLOCK_M, BLOCK_N, STAGES, HAS_PARTIAL,
                    st_layout, op_layout)
            dk, dv = warpgroup_mma_wait(num_outstanding=0, deps=(dk, dv))
        mbarrier.invalidate(kv_bar)
        for i in gl.static_range(STAGES):
            mbarrier.invalidate(q_bar.index(i))
            mbarrier.invalidate(do_bar.index(i))

        # The slot is read even for layouts without split columns (see the forward: a
        # constexpr that left the workspace branch out crashed Triton 3.6's lowering).
        store_dkdv(dk * sm_scale, dv, DK, DV, WS_DK, WS_DV, gl.load(entry + ENTRY_SLOT),
                   gl.program_id(1), b, kv_h, kb, start_n, H_KV, Nk, WS_SLOTS, LAYOUT_BLOCK,
                   BLOCK_N, D, kv_layout)


def usable(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, do: torch.Tensor,
           layout_block: int, dropout_p: float, has_padding: bool, scheduled: bool) -> bool:
    """Whether ``launch.backward`` runs this dK/dV kernel. Only where the inputs allow it:
    an sm_90 GPU, float16 or bfloat16, D of 64 or 128, no dropout and no key padding (not
    implemented here), the column schedule (``scheduled``), a layout block that is a
    multiple of the tiles, a query length that is a multiple of the layout block (no tile
    runs past N), and contiguous q, k, v, dO. Then ``SPARSEFLASH_GLUON`` decides, as for
    the forward: ``auto`` (the default) at D=128, where it measured faster than the
    Triton kernel (module docstring); ``1`` at both head dims; ``0`` never.
    ``launch.backward`` asks ``hopper_fused.usable`` first: where the fused backward runs
    (by default at D=128), this kernel does not."""
    choice = hopper.gluon_choice()
    if (choice == "0" or (choice == "auto" and q.shape[-1] != 128) or not scheduled
            or q.shape[2] % layout_block):
        return False
    return hopper.inputs_fit((q, k, v, do), layout_block, (BLOCK_M, BLOCK_N), dropout_p,
                             has_padding)


def compile_options(head_dim: int) -> dict:
    """Launch options beyond the constexprs (none measured to help yet)."""
    return {}


if AVAILABLE:
    _KERNEL = fastlaunch.Kernel(hopper_dkdv_kernel)


def bind_dkdv(q, k, programs, kv_groups, num_kv_blocks, sched_heads, q_slots, layout_block,
              has_partial) -> "fastlaunch.Launch":
    """:func:`hopper_dkdv_kernel` bound to these shapes, on ``programs`` column schedule
    entries (``launch.backward`` checked :func:`usable` and keeps the result for calls of
    the same shapes); :func:`dkdv` launches it."""
    B, H, N, D = q.shape
    H_kv, Nk = k.shape[1], k.shape[2]
    return _KERNEL.bind(
        (programs * (layout_block // BLOCK_N), kv_groups), (q.dtype,),
        (H, H_kv, N, Nk, num_kv_blocks, sched_heads, H // H_kv, q_slots),
        LAYOUT_BLOCK=layout_block, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, D=D, STAGES=STAGES,
        HAS_PARTIAL=has_partial, num_warps=NUM_WARPS, **compile_options(D))


def dkdv(bound, q, k, v, do, lse, delta, dk, dv, col_idx, col_part_idx, col_part_code,
         col_sched, ws_dk, ws_dv, qk_scale, sm_scale):
    """Launch ``bound`` (:func:`bind_dkdv`): writes ``dk``, ``dv`` and the workspace of
    split columns."""
    descriptor = hopper.descriptor
    bound((dk, dv, lse, delta, col_idx, col_part_idx, col_part_code, col_sched, ws_dk, ws_dv),
          (descriptor(q, BLOCK_M), descriptor(k, BLOCK_N), descriptor(v, BLOCK_N),
           descriptor(do, BLOCK_M), qk_scale, sm_scale))
