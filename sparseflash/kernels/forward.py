"""Block-sparse FlashAttention forward (Dao et al. 2022, Algorithms 1 and 5).

One program per (schedule entry, query tile, batch * head). A schedule entry is a layout row,
or a chunk of a row much longer than the rest (see ``sparseflash.layout.schedule``), and the
entries run longest first. A program loads its query tile once and walks the key blocks of
its stretch: first the *full* blocks with no element mask, then the *partial* ones with it. Blocks the layout does not list cost nothing. Softmax runs online
in float32 with exp2 and the scale folded in; the program writes O and the base-2
log-sum-exp ``log2(sum(2^(s * scale * log2(e))))`` = natural lse * log2(e).
"""

import triton
import triton.language as tl

from .common import (ENTRY_FULL_START, ENTRY_PARTIAL_START, ENTRY_SLOT, block_at,
                     chunk_slot, consecutive_run, dropout_keep, dropout_seed, head_dim_mask,
                     key_bound_mask, listed_stretch, mma, scheduled_program, split_row,
                     tile_mask, walk_ends)


@triton.jit
def _attend_tile(acc, l_i, m_i, q, K, V, start_n, offs_m, offs_d, code, b, bh,
                 Nk, D, stride_kn, stride_kd, stride_vn, stride_vd, KPM, stride_kpm_b,
                 qk_scale, seed, dropout_p, keep_threshold,
                 BLOCK_N: tl.constexpr, PARTIAL: tl.constexpr, HAS_PADDING: tl.constexpr,
                 HAS_DROPOUT: tl.constexpr, PRECISION: tl.constexpr, EVEN_D: tl.constexpr,
                 USE_TMA: tl.constexpr):
    """One (BLOCK_M x BLOCK_N) step of the online softmax: returns the updated
    ``(acc, l_i, m_i)``. ``K``/``V`` are tensor descriptors (``USE_TMA``: the copy engine
    loads the tiles, zero-filling rows past ``Nk``) or pointers."""
    offs_n = start_n + tl.arange(0, BLOCK_N)
    if USE_TMA:
        k = K.load([start_n, 0]).T
        v = V.load([start_n, 0])
    else:
        d_ok = head_dim_mask(offs_d, D, EVEN_D)
        kv_ok = key_bound_mask(offs_n, Nk, PARTIAL)
        k = tl.load(K + offs_n[None, :] * stride_kn + offs_d[:, None] * stride_kd,
                    mask=d_ok[:, None] & kv_ok[None, :], other=0.0)
        v = tl.load(V + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                    mask=kv_ok[:, None] & d_ok[None, :], other=0.0)
    # The row maximum is taken over the raw scores and scaled once per row, so that each
    # score is scaled and shifted in one FMA (Triton fuses the multiply and the subtract by
    # default) instead of a multiply feeding both the maximum and a subtract. The launcher
    # makes qk_scale positive, so max(s) * scale = max(s * scale).
    s = mma(q, k, PRECISION)
    if PARTIAL or HAS_PADDING:
        keep = tile_mask(offs_m, offs_n, code, b, Nk, KPM, stride_kpm_b, PARTIAL, HAS_PADDING)
        s = tl.where(keep, s, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
    # A row with nothing on so far keeps m = -inf; subtract 0 instead so exp2 gives 0, not NaN.
    m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
    p = tl.math.exp2(s * qk_scale - m_safe[:, None])
    alpha = tl.math.exp2(m_i - m_safe)
    l_i = l_i * alpha + tl.sum(p, 1)
    if HAS_DROPOUT:
        keep_drop = dropout_keep(seed, bh, offs_m, start_n, BLOCK_N, keep_threshold)
        p = tl.where(keep_drop, p * (1.0 / (1.0 - dropout_p)), 0.0)
    acc = mma(p.to(v.dtype), v, PRECISION, acc * alpha[:, None])
    return acc, l_i, m_new


@triton.jit(do_not_specialize=["N", "Nk", "keep_threshold", "LENGTH_CLASS"])
def attention_forward_kernel(
        Q, K, V, O, LSE,
        FULL_OFF, FULL_IDX, PART_OFF, PART_IDX, PART_CODE,
        SCHED, WS_O, WS_LSE,
        KPM, KV_LIMITS, SEED,
        qk_scale, dropout_p, keep_threshold,
        stride_qb, stride_qh, stride_qn, stride_qd,
        stride_kb, stride_kh, stride_kn, stride_kd,
        stride_vb, stride_vh, stride_vn, stride_vd,
        stride_ob, stride_oh, stride_on, stride_od,
        stride_kpm_b, stride_lim_b,
        H, N, Nk, D, NUM_Q_BLOCKS, LAYOUT_HEADS, GROUP, WS_SLOTS, LENGTH_CLASS,
        LAYOUT_BLOCK: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
        BLOCK_D: tl.constexpr, HAS_PADDING: tl.constexpr, HAS_DROPOUT: tl.constexpr,
        PRECISION: tl.constexpr, EVEN_D: tl.constexpr, USE_TMA: tl.constexpr,
        ROW_RUNS: tl.constexpr, HAS_PARTIAL: tl.constexpr, HAS_SPLITS: tl.constexpr,
        INDEX_REGS: tl.constexpr):
    # Program (entry, query tile within the layout block) x (batch, head repeat). The
    # schedule entry names the layout row and the stretch of its lists this program walks.
    entry, q_block, tile, b, h, pid_g = scheduled_program(
        SCHED, H, NUM_Q_BLOCKS, LAYOUT_HEADS, LAYOUT_BLOCK // BLOCK_M)
    seed = dropout_seed(SEED, HAS_DROPOUT)
    bh = b * H + h
    kv_h = h // GROUP
    offs_m = q_block * LAYOUT_BLOCK + tile * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    m_ok = offs_m < N
    d_ok = head_dim_mask(offs_d, D, EVEN_D)

    Q += b.to(tl.int64) * stride_qb + h.to(tl.int64) * stride_qh
    K += b.to(tl.int64) * stride_kb + kv_h.to(tl.int64) * stride_kh
    V += b.to(tl.int64) * stride_vb + kv_h.to(tl.int64) * stride_vh
    if USE_TMA:
        # The launcher checked what the copy engine needs: unit stride along D, 16-byte
        # aligned rows and base. Rows past Nk (a ragged last block) read as zeros.
        K = tl.make_tensor_descriptor(K, shape=[Nk, D], strides=[stride_kn, 1],
                                      block_shape=[BLOCK_N, BLOCK_D])
        V = tl.make_tensor_descriptor(V, shape=[Nk, D], strides=[stride_vn, 1],
                                      block_shape=[BLOCK_N, BLOCK_D])
    q = tl.load(Q + offs_m[:, None] * stride_qn + offs_d[None, :] * stride_qd,
                mask=m_ok[:, None] & d_ok[None, :], other=0.0)

    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    SUBTILES: tl.constexpr = LAYOUT_BLOCK // BLOCK_N

    # One flat loop over (listed block, sub-tile) pairs keeps the loop body to a single tile,
    # which the software pipeliner handles far better than a nested loop.
    # Full blocks (no element mask), then partial ones (causal diagonal, ragged last key
    # block, ...) with it. With key padding the lists stop at the sequence's last real key
    # (walk_ends): a shorter loop rather than a branch per block, which would keep the
    # pipeliner from prefetching K and V (benchmarks/NOTES.md, v7).
    full_end, part_end = walk_ends(entry, KV_LIMITS, b, stride_lim_b, HAS_PADDING)
    full_start = tl.load(entry + ENTRY_FULL_START)
    # Consecutive key blocks are walked with offsets computed, not read (consecutive_run);
    # other lists through the table. Two loops in sequence, one of them empty, rather than
    # an if/else: the compiler reuses the shared memory of sequential loops' pipelines but
    # not of two branches' (which would not fit at D=128). Layout-wide facts leave loops
    # out at compile time: ROW_RUNS (every row consecutive) the table walk, no HAS_PARTIAL
    # the partial one. An empty loop still costs its pipeline's set-up, 2-3% of a 7-block
    # row's program in a minimal forward (benchmarks/NOTES.md, v14).
    run = consecutive_run(FULL_IDX, full_start, full_end, LAYOUT_BLOCK, KNOWN_RUN=ROW_RUNS)
    run_tiles = (full_end - full_start if ROW_RUNS
                 else tl.where(run >= 0, full_end - full_start, 0)) * SUBTILES
    for t in range(0, run_tiles):
        acc, l_i, m_i = _attend_tile(
            acc, l_i, m_i, q, K, V, run + t * BLOCK_N, offs_m, offs_d, 0, b, bh, Nk, D,
            stride_kn, stride_kd, stride_vn, stride_vd, KPM, stride_kpm_b, qk_scale, seed,
            dropout_p, keep_threshold, BLOCK_N, False, HAS_PADDING, HAS_DROPOUT, PRECISION,
            EVEN_D, USE_TMA)
    if not ROW_RUNS:
        # INDEX_REGS: the row's block indices held in registers (listed_stretch), so the
        # loop pipelines like the run walk above.
        listed = listed_stretch(FULL_IDX, full_start, full_end, INDEX_REGS)
        for t in range(full_start * SUBTILES + run_tiles, full_end * SUBTILES):
            kb = block_at(FULL_IDX, listed, full_start, t // SUBTILES, INDEX_REGS)
            acc, l_i, m_i = _attend_tile(
                acc, l_i, m_i, q, K, V, kb * LAYOUT_BLOCK + (t % SUBTILES) * BLOCK_N, offs_m,
                offs_d, 0, b, bh, Nk, D, stride_kn, stride_kd, stride_vn, stride_vd, KPM,
                stride_kpm_b, qk_scale, seed, dropout_p, keep_threshold, BLOCK_N, False,
                HAS_PADDING, HAS_DROPOUT, PRECISION, EVEN_D, USE_TMA)
    if HAS_PARTIAL:
        for t in range(tl.load(entry + ENTRY_PARTIAL_START) * SUBTILES, part_end * SUBTILES):
            kb = tl.load(PART_IDX + t // SUBTILES)
            code = tl.load(PART_CODE + t // SUBTILES)
            acc, l_i, m_i = _attend_tile(
                acc, l_i, m_i, q, K, V, kb * LAYOUT_BLOCK + (t % SUBTILES) * BLOCK_N, offs_m,
                offs_d, code, b, bh, Nk, D, stride_kn, stride_kd, stride_vn, stride_vd, KPM,
                stride_kpm_b, qk_scale, seed, dropout_p, keep_threshold, BLOCK_N, True,
                HAS_PADDING, HAS_DROPOUT, PRECISION, EVEN_D, USE_TMA)

    # Rows with no key left: O = 0 and lse = -inf (never NaN).
    has_keys = l_i > 0.0
    out = acc / tl.where(has_keys, l_i, 1.0)[:, None]
    # The log-sum-exp stays in the base-2, scale-folded domain the loop ran in: the backward
    # subtracts it from base-2 scores directly, and a round trip through the natural log
    # would round it twice (visible at large logits). ``attention`` converts it for users.
    lse = tl.where(has_keys, m_i + tl.math.log2(tl.where(has_keys, l_i, 1.0)), float("-inf"))
    slot = -1
    if HAS_SPLITS:  # some row of the layout is split across programs (else no branch)
        slot = tl.load(entry + ENTRY_SLOT)
    if slot < 0:
        O += b.to(tl.int64) * stride_ob + h.to(tl.int64) * stride_oh
        tl.store(O + offs_m[:, None] * stride_on + offs_d[None, :] * stride_od,
                 out.to(O.dtype.element_ty), mask=m_ok[:, None] & d_ok[None, :])
        tl.store(LSE + bh.to(tl.int64) * N + offs_m, lse, mask=m_ok)
    else:
        # One chunk of a split row: its normalised output and lse go to the workspace
        # (pid_g, slot, row in block, D) in float32; launch.forward merges the chunks.
        ws_row = (pid_g.to(tl.int64) * WS_SLOTS + slot) * LAYOUT_BLOCK
        ws = ws_row + offs_m - q_block * LAYOUT_BLOCK
        tl.store(WS_O + ws[:, None] * D + offs_d[None, :], out,
                 mask=m_ok[:, None] & d_ok[None, :])
        tl.store(WS_LSE + ws, lse, mask=m_ok)


@triton.jit(do_not_specialize=["N"])
def merge_split_rows_kernel(
        WS_O, WS_LSE, SPLIT_SLOTS, SPLIT_ROWS, O, LSE,
        stride_ob, stride_oh, stride_on, stride_od,
        H, N, D, NUM_Q_BLOCKS, LAYOUT_HEADS, NUM_SLOTS, MAX_CHUNKS, GROUP0,
        LAYOUT_BLOCK: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr,
        CHUNKED: tl.constexpr = False):
    """Combine the chunks of one split row: program (split row, (batch, head repeat), tile).

    Each chunk left its normalised output and base-2 lse in the workspace ``(G, NUM_SLOTS,
    LAYOUT_BLOCK, D)``; the row's result weighs them by ``2^(lse_chunk - lse_row)``, the
    same rescaling the online softmax does between tiles. Padding slots (= NUM_SLOTS) are
    masked out.

    ``CHUNKED`` (the persistent forward's chunked rows, ``hopper_pingpong.FILL_LAST_WAVE``):
    every schedule entry is split into ``MAX_CHUNKS`` chunks in slots ``u * MAX_CHUNKS``
    on, ``SPLIT_ROWS`` is the row schedule (its entries' rows are read), ``SPLIT_SLOTS`` is
    not read, and the grid's groups are the (batch, head repeat) groups from ``GROUP0`` on.
    """
    u = tl.program_id(0)
    g = tl.program_id(1)
    row = split_row(SPLIT_ROWS, u, CHUNKED)
    h_layout = row // NUM_Q_BLOCKS
    q_block = row % NUM_Q_BLOCKS
    rep = H // LAYOUT_HEADS
    b = (GROUP0 + g) // rep
    h = h_layout * rep + (GROUP0 + g) % rep
    offs_r = tl.program_id(2) * BLOCK_M + tl.arange(0, BLOCK_M)  # row within the block
    offs_m = q_block * LAYOUT_BLOCK + offs_r
    offs_d = tl.arange(0, BLOCK_D)
    m_ok = offs_m < N
    d_ok = offs_d < D

    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    # Pipelined (the slot's load and the chunk's, two ahead), as sum_split_rows_kernel.
    for c in tl.range(0, MAX_CHUNKS, num_stages=3):
        slot = chunk_slot(SPLIT_SLOTS, u, c, MAX_CHUNKS, CHUNKED)
        # A padding slot reads nothing: its rows count as past the end.
        ok = offs_m < tl.where(slot < NUM_SLOTS, N, 0)
        ws = (g.to(tl.int64) * NUM_SLOTS + slot) * LAYOUT_BLOCK + offs_r
        lse_c = tl.load(WS_LSE + ws, mask=ok, other=float("-inf"))
        o_c = tl.load(WS_O + ws[:, None] * D + offs_d[None, :], mask=ok[:, None] & d_ok[None, :],
                      other=0.0)
        m_new = tl.maximum(m_i, lse_c)
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.math.exp2(m_i - m_safe)
        w = tl.math.exp2(lse_c - m_safe)
        l_i = l_i * alpha + w
        acc = acc * alpha[:, None] + w[:, None] * o_c
        m_i = m_new
    has_keys = l_i > 0.0
    out = acc / tl.where(has_keys, l_i, 1.0)[:, None]
    lse = tl.where(has_keys, m_i + tl.math.log2(tl.where(has_keys, l_i, 1.0)), float("-inf"))
    O += b.to(tl.int64) * stride_ob + h.to(tl.int64) * stride_oh
    tl.store(O + offs_m[:, None] * stride_on + offs_d[None, :] * stride_od,
             out.to(O.dtype.element_ty), mask=m_ok[:, None] & d_ok[None, :])
    tl.store(LSE + (b * H + h).to(tl.int64) * N + offs_m, lse, mask=m_ok)
