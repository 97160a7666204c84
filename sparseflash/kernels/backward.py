"""Block-sparse FlashAttention backward with recomputation (Dao et al. 2022, Algorithms 2
and 4, restricted to the non-zero blocks).

Two kernels, no atomics, deterministic, in this order:

* dQ: one program per (query tile, batch * head) walks its layout *row*, like the forward.
  Before its walk it computes ``delta = rowsum(dO * O)`` for its rows, which its own tiles
  need, and stores it for the dK/dV kernel (every row has a program: schedules give empty
  rows one too). A separate delta kernel would cost a launch: ~60 microseconds of host
  time on a call that the host, not the GPU, paces (benchmarks/NOTES.md, v13).
* dK/dV: one program per (key tile, batch * kv head) walks the query blocks its layout
  *column* lists (the transposed tables), for every query head of its GQA group, and
  accumulates dK and dV in registers.

Both recompute P = exp2(S * scale * log2(e) - lse2) from the forward's base-2
log-sum-exp; dropout regenerates the same keep-mask from the Philox seed.
"""

import triton
import triton.language as tl

from .common import (ENTRY_FULL_END, ENTRY_FULL_START, ENTRY_PARTIAL_END,
                     ENTRY_PARTIAL_START, ENTRY_SLOT, chunk_slot, consecutive_run,
                     dropout_keep, dropout_seed, head_dim_mask, key_bound_mask, mma,
                     scheduled_program, split_row, tile_mask, wait_for_prior_grid,
                     walk_ends)


@triton.jit
def _probabilities(s, offs_m, offs_n, code, b, Nk, KPM, stride_kpm_b, lse2, qk_scale,
                   PARTIAL: tl.constexpr, HAS_PADDING: tl.constexpr,
                   KEYS_FIRST: tl.constexpr = False):
    """P (BLOCK_M, BLOCK_N) in float32, recomputed from the raw scores ``s``; with
    ``KEYS_FIRST`` the transposed P^T (BLOCK_N, BLOCK_M) from S^T. Scale and shift compile
    to one FMA per score (Triton fuses a multiply and an add by default)."""
    if KEYS_FIRST:
        p = tl.math.exp2(s * qk_scale - lse2[None, :])
    else:
        p = tl.math.exp2(s * qk_scale - lse2[:, None])
    if PARTIAL or HAS_PADDING:
        keep = tile_mask(offs_m, offs_n, code, b, Nk, KPM, stride_kpm_b, PARTIAL, HAS_PADDING,
                         KEYS_FIRST=KEYS_FIRST)
        p = tl.where(keep, p, 0.0)
    return p


@triton.jit
def _dropped(p, dp, keep, dropout_p):
    """P and dP under the forward's dropout: kept entries scaled by 1 / (1 - p), the rest
    zero. ``keep`` is in the layout of ``p`` (transposed with it, or not)."""
    scale_keep = 1.0 / (1.0 - dropout_p)
    return tl.where(keep, p * scale_keep, 0.0), tl.where(keep, dp * scale_keep, 0.0)


@triton.jit
def _dkdv_tile(dk, dv, k, v, Q, DO, LSE, DELTA, start_m, start_n, offs_d, code, b, bh,
               N, Nk, D, stride_qn, stride_qd, stride_don, stride_dod, KPM, stride_kpm_b,
               qk_scale, seed, dropout_p, keep_threshold,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PARTIAL: tl.constexpr,
               HAS_PADDING: tl.constexpr, HAS_DROPOUT: tl.constexpr,
               PRECISION: tl.constexpr, EVEN_D: tl.constexpr, TRANSPOSED: tl.constexpr,
               ROWS_MASKED: tl.constexpr):
    """One query tile's contribution to this program's dK and dV (BLOCK_N, BLOCK_D).

    ``TRANSPOSED`` (the kernel's COLUMN_RUNS): k and v are (BLOCK_N, BLOCK_D) tiles and
    the scores are formed transposed, S^T = k q^T (FlashAttention-2's order), so P^T and
    dS^T come out of their MMA in the layout the next MMA takes as its left operand and
    nothing is transposed in registers. Otherwise k and v arrive transposed, (BLOCK_D,
    BLOCK_N), and S = q k_t as in the forward. Float32 inputs always take the latter: they
    keep the forward's summation order, which the float64 test at logits ~3000 needs (one
    ulp of S moves P by ~1e-4; NOTES, v8).

    ``ROWS_MASKED``: the tile may reach past N (the ragged last query block), or is
    walked through the table; its loads are masked. Only a consecutive column's tiles
    before N go unmasked: masked loads in the loop cost a minimal dK/dV 6-18% (NOTES, v12).
    """
    offs_m = start_m + tl.arange(0, BLOCK_M)
    d_ok = head_dim_mask(offs_d, D, EVEN_D)
    if ROWS_MASKED:
        m_ok = offs_m < N
        q = tl.load(Q + offs_m[:, None] * stride_qn + offs_d[None, :] * stride_qd,
                    mask=m_ok[:, None] & d_ok[None, :], other=0.0)
        do = tl.load(DO + offs_m[:, None] * stride_don + offs_d[None, :] * stride_dod,
                     mask=m_ok[:, None] & d_ok[None, :], other=0.0)
        lse = tl.load(LSE + offs_m, mask=m_ok, other=float("inf"))
        delta = tl.load(DELTA + offs_m, mask=m_ok, other=0.0)
        # Rows with no key (lse = -inf) and rows past N get P = 0.
        lse2 = tl.where(lse == float("-inf"), float("inf"), lse)
    else:
        # Rows before N, in a full tile: every row has keys there, so its lse is finite
        # (a row with no key at all has every score masked, P = 0, in any tile).
        q = tl.load(Q + offs_m[:, None] * stride_qn + offs_d[None, :] * stride_qd,
                    mask=d_ok[None, :], other=0.0)
        do = tl.load(DO + offs_m[:, None] * stride_don + offs_d[None, :] * stride_dod,
                     mask=d_ok[None, :], other=0.0)
        lse2 = tl.load(LSE + offs_m)
        delta = tl.load(DELTA + offs_m)
    offs_n = start_n + tl.arange(0, BLOCK_N)
    if TRANSPOSED:
        p_t = _probabilities(mma(k, tl.trans(q), PRECISION), offs_m, offs_n, code, b, Nk, KPM,
                             stride_kpm_b, lse2, qk_scale, PARTIAL, HAS_PADDING, KEYS_FIRST=True)
        dp_t = mma(v, tl.trans(do), PRECISION)
        if HAS_DROPOUT:
            keep_t = tl.trans(dropout_keep(seed, bh, offs_m, start_n, BLOCK_N, keep_threshold))
            p_drop_t, dp_t = _dropped(p_t, dp_t, keep_t, dropout_p)
        else:
            p_drop_t = p_t
        dv = mma(p_drop_t.to(do.dtype), do, PRECISION, dv)
        ds_t = p_t * (dp_t - delta[None, :])
        dk = mma(ds_t.to(q.dtype), q, PRECISION, dk)
    else:
        p = _probabilities(mma(q, k, PRECISION), offs_m, offs_n, code, b, Nk, KPM,
                           stride_kpm_b, lse2, qk_scale, PARTIAL, HAS_PADDING)
        dp = mma(do, v, PRECISION)
        if HAS_DROPOUT:
            keep = dropout_keep(seed, bh, offs_m, start_n, BLOCK_N, keep_threshold)
            # A barrier of the program's threads after the keep mask's layout conversions:
            # without it Triton 3.6 compiled this branch wrong on an H100 at D=128 with
            # 32 x 64 tiles on a ragged length (dK off by up to 0.1 on 2-7% of key rows,
            # varying from run to run at 3 stages; dQ and dV right; right with 1 stage or
            # other tiles), and right with it (benchmarks/NOTES.md, v31). It costs this
            # path's fwd+bwd with dropout 8-13% at D=128; the transposed branch, never
            # seen wrong, goes without (it cost D=64 up to 7%).
            tl.debug_barrier()
            p_drop, dp = _dropped(p, dp, keep, dropout_p)
        else:
            p_drop = p
        dv = mma(tl.trans(p_drop.to(do.dtype)), do, PRECISION, dv)
        ds = p * (dp - delta[:, None])
        dk = mma(tl.trans(ds.to(q.dtype)), q, PRECISION, dk)
    return dk, dv


@triton.jit(do_not_specialize=["N", "Nk", "keep_threshold", "LENGTH_CLASS"])
def attention_dkdv_kernel(
        Q, K, V, DO, LSE, DELTA, DK, DV,
        FULL_OFF, FULL_IDX, PART_OFF, PART_IDX, PART_CODE,
        SCHED, WS_DK, WS_DV,
        KPM, KV_LIMITS, SEED,
        qk_scale, sm_scale, dropout_p, keep_threshold,
        stride_qb, stride_qh, stride_qn, stride_qd,
        stride_kb, stride_kh, stride_kn, stride_kd,
        stride_vb, stride_vh, stride_vn, stride_vd,
        stride_dob, stride_doh, stride_don, stride_dod,
        stride_dkb, stride_dkh, stride_dkn, stride_dkd,
        stride_dvb, stride_dvh, stride_dvn, stride_dvd,
        stride_kpm_b, stride_lim_b,
        H, H_KV, N, Nk, D, NUM_KV_BLOCKS, LAYOUT_HEADS, GROUP, SCHED_HEADS, WS_SLOTS,
        LENGTH_CLASS, LAYOUT_BLOCK: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
        BLOCK_D: tl.constexpr, HAS_PADDING: tl.constexpr, HAS_DROPOUT: tl.constexpr,
        SCHEDULED: tl.constexpr, PRECISION: tl.constexpr, EVEN_D: tl.constexpr,
        COLUMN_RUNS: tl.constexpr, HAS_PARTIAL: tl.constexpr, HAS_SPLITS: tl.constexpr):
    # SCHEDULED: the column schedule (longest first, long columns split, partial dK/dV to
    # the workspace) applies when every query head of a GQA group reads the same column,
    # i.e. a broadcast layout (SCHED_HEADS = 1) or no grouping (SCHED_HEADS = H_KV = H).
    # Per-head layouts with grouped heads walk each head's own column, unscheduled.
    if SCHEDULED:
        entry, kb, tile, b, kv_h, pid_g = scheduled_program(
            SCHED, H_KV, NUM_KV_BLOCKS, SCHED_HEADS, LAYOUT_BLOCK // BLOCK_N)
        start_n = kb * LAYOUT_BLOCK + tile * BLOCK_N
    else:
        pid_n = tl.program_id(0)
        bhk = tl.program_id(1)
        b = bhk // H_KV
        kv_h = bhk % H_KV
        # An unscheduled column is never split (its slot stays -1), but the workspace
        # branch below is compiled all the same: it names pid_g.
        pid_g = bhk
        start_n = pid_n * BLOCK_N
        kb = start_n // LAYOUT_BLOCK
    seed = dropout_seed(SEED, HAS_DROPOUT)
    offs_n = start_n + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    n_ok = offs_n < Nk
    d_ok = head_dim_mask(offs_d, D, EVEN_D)

    dk = tl.zeros((BLOCK_N, BLOCK_D), tl.float32)
    dv = tl.zeros((BLOCK_N, BLOCK_D), tl.float32)
    active = True
    if HAS_PADDING:
        # Key blocks past the last real key of this sequence are all padding: nothing to do.
        active = kb < tl.load(KV_LIMITS + b * stride_lim_b)
    if active:
        K += b.to(tl.int64) * stride_kb + kv_h.to(tl.int64) * stride_kh
        V += b.to(tl.int64) * stride_vb + kv_h.to(tl.int64) * stride_vh
        # COLUMN_RUNS (every column lists consecutive query blocks, 16-bit inputs, D <= 64):
        # scores transposed (see _dkdv_tile), so k and v are (BLOCK_N, D) tiles; otherwise
        # they are loaded transposed, (D, BLOCK_N).
        if COLUMN_RUNS:
            k = tl.load(K + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd,
                        mask=n_ok[:, None] & d_ok[None, :], other=0.0)
            v = tl.load(V + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                        mask=n_ok[:, None] & d_ok[None, :], other=0.0)
        else:
            k = tl.load(K + offs_n[None, :] * stride_kn + offs_d[:, None] * stride_kd,
                        mask=d_ok[:, None] & n_ok[None, :], other=0.0)
            v = tl.load(V + offs_n[None, :] * stride_vn + offs_d[:, None] * stride_vd,
                        mask=d_ok[:, None] & n_ok[None, :], other=0.0)
        SUBTILES: tl.constexpr = LAYOUT_BLOCK // BLOCK_M
        for g in range(GROUP):
            h = kv_h * GROUP + g
            bh = b * H + h
            Qh = Q + b.to(tl.int64) * stride_qb + h.to(tl.int64) * stride_qh
            DOh = DO + b.to(tl.int64) * stride_dob + h.to(tl.int64) * stride_doh
            LSEh = LSE + bh.to(tl.int64) * N
            DELTAh = DELTA + bh.to(tl.int64) * N
            if SCHEDULED:
                full_start = tl.load(entry + ENTRY_FULL_START)
                full_end = tl.load(entry + ENTRY_FULL_END)
                part_start = tl.load(entry + ENTRY_PARTIAL_START)
                part_end = tl.load(entry + ENTRY_PARTIAL_END)
            else:
                col = (h % LAYOUT_HEADS) * NUM_KV_BLOCKS + kb
                full_start, full_end = tl.load(FULL_OFF + col), tl.load(FULL_OFF + col + 1)
                part_start, part_end = tl.load(PART_OFF + col), tl.load(PART_OFF + col + 1)
            # COLUMN_RUNS: the run's tiles that end by N are walked at computed offsets
            # (as the forward walks its rows' runs: a table read per tile costs the
            # pipeliner a stage and a barrier) with unmasked loads (masked loads in the
            # loop cost a minimal dK/dV 6-18%: benchmarks/NOTES.md, v12). Only the last
            # query block can reach past N; its tiles are left to the masked table walk,
            # which otherwise takes every full block.
            masked_start = full_start * SUBTILES
            if COLUMN_RUNS:
                # COLUMN_RUNS is only set when every column is a run: no test needed.
                run = consecutive_run(FULL_IDX, full_start, full_end, LAYOUT_BLOCK,
                                      KNOWN_RUN=True)
                unmasked = tl.minimum((full_end - full_start) * SUBTILES, (N - run) // BLOCK_M)
                for t in range(0, unmasked):
                    dk, dv = _dkdv_tile(
                        dk, dv, k, v, Qh, DOh, LSEh, DELTAh, run + t * BLOCK_M, start_n,
                        offs_d, 0, b, bh, N, Nk, D, stride_qn, stride_qd, stride_don,
                        stride_dod, KPM, stride_kpm_b, qk_scale, seed, dropout_p,
                        keep_threshold, BLOCK_M, BLOCK_N, False, HAS_PADDING, HAS_DROPOUT,
                        PRECISION, EVEN_D, True, False)
                masked_start += unmasked
            for t in range(masked_start, full_end * SUBTILES):
                qb = tl.load(FULL_IDX + t // SUBTILES)
                dk, dv = _dkdv_tile(
                    dk, dv, k, v, Qh, DOh, LSEh, DELTAh,
                    qb * LAYOUT_BLOCK + (t % SUBTILES) * BLOCK_M, start_n, offs_d, 0, b, bh, N,
                    Nk, D, stride_qn, stride_qd, stride_don, stride_dod, KPM, stride_kpm_b,
                    qk_scale, seed, dropout_p, keep_threshold, BLOCK_M, BLOCK_N, False,
                    HAS_PADDING, HAS_DROPOUT, PRECISION, EVEN_D, COLUMN_RUNS, True)
            if HAS_PARTIAL:  # (no partial block in the layout: no loop to set up)
                for t in range(part_start * SUBTILES, part_end * SUBTILES):
                    qb = tl.load(PART_IDX + t // SUBTILES)
                    code = tl.load(PART_CODE + t // SUBTILES)
                    dk, dv = _dkdv_tile(
                        dk, dv, k, v, Qh, DOh, LSEh, DELTAh,
                        qb * LAYOUT_BLOCK + (t % SUBTILES) * BLOCK_M, start_n, offs_d, code, b,
                        bh, N, Nk, D, stride_qn, stride_qd, stride_don, stride_dod, KPM,
                        stride_kpm_b, qk_scale, seed, dropout_p, keep_threshold, BLOCK_M,
                        BLOCK_N, True, HAS_PADDING, HAS_DROPOUT, PRECISION, EVEN_D,
                        COLUMN_RUNS, True)

    dk = dk * sm_scale
    out_mask = n_ok[:, None] & d_ok[None, :]
    slot = -1
    if SCHEDULED and HAS_SPLITS:
        slot = tl.load(entry + ENTRY_SLOT)
    if slot < 0:
        DK += b.to(tl.int64) * stride_dkb + kv_h.to(tl.int64) * stride_dkh
        DV += b.to(tl.int64) * stride_dvb + kv_h.to(tl.int64) * stride_dvh
        tl.store(DK + offs_n[:, None] * stride_dkn + offs_d[None, :] * stride_dkd,
                 dk.to(DK.dtype.element_ty), mask=out_mask)
        tl.store(DV + offs_n[:, None] * stride_dvn + offs_d[None, :] * stride_dvd,
                 dv.to(DV.dtype.element_ty), mask=out_mask)
    else:
        # One chunk of a split column: partial sums, added up by sum_split_rows_kernel.
        ws_row = (pid_g.to(tl.int64) * WS_SLOTS + slot) * LAYOUT_BLOCK
        ws = (ws_row + offs_n - kb * LAYOUT_BLOCK)[:, None] * D + offs_d[None, :]
        tl.store(WS_DK + ws, dk, mask=out_mask)
        tl.store(WS_DV + ws, dv, mask=out_mask)


@triton.jit
def _dq_tile(dq, q, do, lse2, delta, K, V, start_n, offs_m, offs_d, code, b, bh, Nk, D,
             stride_kn, stride_kd, stride_vn, stride_vd, KPM, stride_kpm_b, qk_scale, seed,
             dropout_p, keep_threshold, BLOCK_N: tl.constexpr, PARTIAL: tl.constexpr,
             HAS_PADDING: tl.constexpr, HAS_DROPOUT: tl.constexpr, PRECISION: tl.constexpr,
             EVEN_D: tl.constexpr):
    offs_n = start_n + tl.arange(0, BLOCK_N)
    d_ok = head_dim_mask(offs_d, D, EVEN_D)
    kv_ok = key_bound_mask(offs_n, Nk, PARTIAL)
    k_t = tl.load(K + offs_n[None, :] * stride_kn + offs_d[:, None] * stride_kd,
                  mask=d_ok[:, None] & kv_ok[None, :], other=0.0)
    v_t = tl.load(V + offs_n[None, :] * stride_vn + offs_d[:, None] * stride_vd,
                  mask=d_ok[:, None] & kv_ok[None, :], other=0.0)
    p = _probabilities(mma(q, k_t, PRECISION), offs_m, offs_n, code, b, Nk, KPM, stride_kpm_b,
                       lse2, qk_scale, PARTIAL, HAS_PADDING)
    dp = mma(do, v_t, PRECISION)
    if HAS_DROPOUT:
        keep = dropout_keep(seed, bh, offs_m, start_n, BLOCK_N, keep_threshold)
        dp = tl.where(keep, dp * (1.0 / (1.0 - dropout_p)), 0.0)
    ds = p * (dp - delta[:, None])
    return mma(ds.to(k_t.dtype), tl.trans(k_t), PRECISION, dq)


@triton.jit(do_not_specialize=["N", "Nk", "keep_threshold", "LENGTH_CLASS"])
def attention_dq_kernel(
        Q, K, V, DO, O, LSE, DELTA, DQ,
        FULL_OFF, FULL_IDX, PART_OFF, PART_IDX, PART_CODE,
        SCHED, WS_DQ,
        KPM, KV_LIMITS, SEED,
        qk_scale, sm_scale, dropout_p, keep_threshold,
        stride_qb, stride_qh, stride_qn, stride_qd,
        stride_kb, stride_kh, stride_kn, stride_kd,
        stride_vb, stride_vh, stride_vn, stride_vd,
        stride_dob, stride_doh, stride_don, stride_dod,
        stride_ob, stride_oh, stride_on, stride_od,
        stride_dqb, stride_dqh, stride_dqn, stride_dqd,
        stride_kpm_b, stride_lim_b,
        H, N, Nk, D, NUM_Q_BLOCKS, LAYOUT_HEADS, GROUP, WS_SLOTS, LENGTH_CLASS,
        LAYOUT_BLOCK: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
        BLOCK_D: tl.constexpr, HAS_PADDING: tl.constexpr, HAS_DROPOUT: tl.constexpr,
        PRECISION: tl.constexpr, EVEN_D: tl.constexpr, HAS_PARTIAL: tl.constexpr,
        HAS_SPLITS: tl.constexpr, ROW_RUNS: tl.constexpr):
    # Scheduled like the forward (same entries): a split row's chunks each add their part
    # of dQ into the workspace, summed by sum_split_rows_kernel. ROW_RUNS (every row lists
    # consecutive blocks): the run is walked at computed offsets, 6-13% faster than through
    # the table on dense and causal rows; otherwise every row reads its blocks from the
    # table in the loop. Unlike the forward, no run walk for the consecutive rows of
    # other layouts (an empty loop costs a short row's program 2-3%: NOTES, v14), and no
    # indices from registers, which measured 3-6% slower here at D=128 (NOTES, v16).
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
    DO += b.to(tl.int64) * stride_dob + h.to(tl.int64) * stride_doh
    K += b.to(tl.int64) * stride_kb + kv_h.to(tl.int64) * stride_kh
    V += b.to(tl.int64) * stride_vb + kv_h.to(tl.int64) * stride_vh
    q = tl.load(Q + offs_m[:, None] * stride_qn + offs_d[None, :] * stride_qd,
                mask=m_ok[:, None] & d_ok[None, :], other=0.0)
    do = tl.load(DO + offs_m[:, None] * stride_don + offs_d[None, :] * stride_dod,
                 mask=m_ok[:, None] & d_ok[None, :], other=0.0)
    lse = tl.load(LSE + bh.to(tl.int64) * N + offs_m, mask=m_ok, other=float("inf"))
    lse2 = tl.where(lse == float("-inf"), float("inf"), lse)
    O += b.to(tl.int64) * stride_ob + h.to(tl.int64) * stride_oh
    o = tl.load(O + offs_m[:, None] * stride_on + offs_d[None, :] * stride_od,
                mask=m_ok[:, None] & d_ok[None, :], other=0.0)
    delta = tl.sum(do.to(tl.float32) * o.to(tl.float32), 1)
    # For the dK/dV kernel, launched after this one. The chunks of a split row all store
    # the same values.
    tl.store(DELTA + bh.to(tl.int64) * N + offs_m, delta, mask=m_ok)
    dq = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)

    SUBTILES: tl.constexpr = LAYOUT_BLOCK // BLOCK_N
    full_end, part_end = walk_ends(entry, KV_LIMITS, b, stride_lim_b, HAS_PADDING)
    full_start = tl.load(entry + ENTRY_FULL_START)
    if ROW_RUNS:
        run = consecutive_run(FULL_IDX, full_start, full_end, LAYOUT_BLOCK, KNOWN_RUN=True)
        for t in range(0, (full_end - full_start) * SUBTILES):
            dq = _dq_tile(dq, q, do, lse2, delta, K, V, run + t * BLOCK_N, offs_m, offs_d, 0,
                          b, bh, Nk, D, stride_kn, stride_kd, stride_vn, stride_vd, KPM,
                          stride_kpm_b, qk_scale, seed, dropout_p, keep_threshold, BLOCK_N,
                          False, HAS_PADDING, HAS_DROPOUT, PRECISION, EVEN_D)
    else:
        for t in range(full_start * SUBTILES, full_end * SUBTILES):
            kb = tl.load(FULL_IDX + t // SUBTILES)
            dq = _dq_tile(dq, q, do, lse2, delta, K, V,
                          kb * LAYOUT_BLOCK + (t % SUBTILES) * BLOCK_N, offs_m, offs_d, 0, b,
                          bh, Nk, D, stride_kn, stride_kd, stride_vn, stride_vd, KPM,
                          stride_kpm_b, qk_scale, seed, dropout_p, keep_threshold, BLOCK_N,
                          False, HAS_PADDING, HAS_DROPOUT, PRECISION, EVEN_D)
    if HAS_PARTIAL:  # (no partial block in the layout: no loop to set up)
        for t in range(tl.load(entry + ENTRY_PARTIAL_START) * SUBTILES, part_end * SUBTILES):
            kb = tl.load(PART_IDX + t // SUBTILES)
            code = tl.load(PART_CODE + t // SUBTILES)
            dq = _dq_tile(dq, q, do, lse2, delta, K, V,
                          kb * LAYOUT_BLOCK + (t % SUBTILES) * BLOCK_N, offs_m, offs_d, code, b,
                          bh, Nk, D, stride_kn, stride_kd, stride_vn, stride_vd, KPM,
                          stride_kpm_b, qk_scale, seed, dropout_p, keep_threshold, BLOCK_N, True,
                          HAS_PADDING, HAS_DROPOUT, PRECISION, EVEN_D)

    dq = dq * sm_scale
    slot = -1
    if HAS_SPLITS:
        slot = tl.load(entry + ENTRY_SLOT)
    if slot < 0:
        DQ += b.to(tl.int64) * stride_dqb + h.to(tl.int64) * stride_dqh
        tl.store(DQ + offs_m[:, None] * stride_dqn + offs_d[None, :] * stride_dqd,
                 dq.to(DQ.dtype.element_ty), mask=m_ok[:, None] & d_ok[None, :])
    else:
        ws_row = (pid_g.to(tl.int64) * WS_SLOTS + slot) * LAYOUT_BLOCK
        ws = ws_row + offs_m - q_block * LAYOUT_BLOCK
        tl.store(WS_DQ + ws[:, None] * D + offs_d[None, :], dq,
                 mask=m_ok[:, None] & d_ok[None, :])


@triton.jit(do_not_specialize=["N"])
def sum_split_rows_kernel(
        WS, SPLIT_SLOTS, SPLIT_ROWS, OUT, WS_2, OUT_2,
        stride_ob, stride_oh, stride_on, stride_od,
        H, N, D, NUM_ROWS, LAYOUT_HEADS, NUM_SLOTS, MAX_CHUNKS, GROUP0,
        LAYOUT_BLOCK: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr,
        PAIR: tl.constexpr = False, PDL: tl.constexpr = False,
        CHUNKED: tl.constexpr = False):
    """Add up the partial gradients of one split row's chunks (workspace ``(G, NUM_SLOTS,
    LAYOUT_BLOCK, D)`` float32) into ``OUT``; grid (split row, (batch, repeat), tile).
    With ``PAIR`` the grid's last axis is twice as long and its second half does the same
    from ``WS_2`` into ``OUT_2`` (dV beside dK: one launch, not two; ``OUT_2`` strided as
    ``OUT``). With ``PDL`` it waits for the grid before it (launched with ``launch_pdl``).

    ``CHUNKED`` (the fused backward's chunked columns, ``hopper_fused.FILL_LAST_WAVE``):
    every schedule entry is split into ``MAX_CHUNKS`` chunks in slots ``u * MAX_CHUNKS``
    on, ``SPLIT_ROWS`` is the column schedule (its entries' rows are read), ``SPLIT_SLOTS``
    is not read, and the grid's groups are the (batch, repeat) groups from ``GROUP0`` on."""
    wait_for_prior_grid(PDL)
    u = tl.program_id(0)
    g = tl.program_id(1)
    tile = tl.program_id(2)
    if PAIR:
        if tile >= LAYOUT_BLOCK // BLOCK_M:
            tile -= LAYOUT_BLOCK // BLOCK_M
            WS = WS_2
            OUT = OUT_2
    row = split_row(SPLIT_ROWS, u, CHUNKED)
    rep = H // LAYOUT_HEADS
    b = (GROUP0 + g) // rep
    h = (row // NUM_ROWS) * rep + (GROUP0 + g) % rep
    offs_r = tile * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_m = (row % NUM_ROWS) * LAYOUT_BLOCK + offs_r
    offs_d = tl.arange(0, BLOCK_D)
    d_ok = offs_d < D
    total = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    # Pipelined (the slot's load and the chunk's, two ahead): in a plain loop each chunk
    # waited for two dependent loads, ~1.5 us, and a 10-chunk column took 16 us.
    for c in tl.range(0, MAX_CHUNKS, num_stages=3):
        slot = chunk_slot(SPLIT_SLOTS, u, c, MAX_CHUNKS, CHUNKED)
        ok = offs_m < tl.where(slot < NUM_SLOTS, N, 0)  # padding slots read nothing
        ws = (g.to(tl.int64) * NUM_SLOTS + slot) * LAYOUT_BLOCK + offs_r
        total += tl.load(WS + ws[:, None] * D + offs_d[None, :],
                         mask=ok[:, None] & d_ok[None, :], other=0.0)
    OUT += b.to(tl.int64) * stride_ob + h.to(tl.int64) * stride_oh
    tl.store(OUT + offs_m[:, None] * stride_on + offs_d[None, :] * stride_od,
             total.to(OUT.dtype.element_ty), mask=(offs_m < N)[:, None] & d_ok[None, :])
