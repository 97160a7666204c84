"""The D=128 forward on Hopper GPUs: warp-specialised, two warp groups in ping-pong.

Same schedule, tables, masks and outputs as ``hopper.hopper_forward_kernel``, whose
helpers it shares; what differs is who does what. A work item's 128 query rows are two
tiles of 64, each its own partition of one warp group (``gl.warp_specialize``), and a
third partition of one warp copies each item's Q and every K/V tile into rings of
:data:`K_STAGES` K and :data:`V_STAGES` V buffers (reading the table as it issues the
copies). With the copies gone from the consumers, they get 240 registers a thread
(``setmaxnreg``), enough for FlashAttention-3's two overlaps (Shah et al., 2024):

* within a warp group, tile j's scores ``Q K_j^T`` are issued before tile j-1's ``P V``,
  and the softmax of tile j runs while ``P V`` is in flight;
* between the two, each warp group issues its round of MMAs only after the other has
  issued its own (two mbarriers, :func:`_wait_turn` and :func:`_pass_turn`), so that one's
  softmax runs under the other's MMAs.

A K buffer goes back to the loader once both warp groups' score products have read it,
a V buffer once both ``P V`` products have, a round later (each barrier counts two
arrivals); with the warp groups as separate partitions, a release synchronises one warp
group, not both.

On an H200 (N = 16K, 16 heads, bf16, dense; ``benchmarks/sessions/s20_ws_fwd.py``,
NOTES v22) the probe of this kernel ran at 607-619 TFLOP/s where ``hopper``'s kernel ran
at 517 and cuDNN at 611-617; without ping-pong 557-574, with one partition for both warp
groups (each slot released in step) 491-520. At D=64 ``hopper``'s kernel, at two programs
an SM, stays faster (479 against 437-463), so :func:`chosen` takes this one at D=128.

The programs are persistent, one an SM: the loader draws work items (the other kernel's
programs, in its launch order) from a counter and hands each to the warp groups with its
Q; the ring, the turns and the Q buffers' barriers run on from item to item, so the next
item's first K/V tile loads while the warp groups finish the last. Against a program an
item (the session-22 kernel, two processes each, alternating; ``s23_persistent_ab.py``,
NOTES v25) short rows took 4-10% less (16K tokens: ``local(1)`` 0.132 ms against 0.147,
``local(3)`` 0.231 against 0.243, random+global 0.231-0.234 against 0.243-0.244), dense
and causal even. Dealing the items statically (program p: p, p + P, ...) was 39% slower
on causal rows, each program's share of long rows being uneven. The Q buffer stays the
staging buffer of O's TMA store and is released after it: releasing it after the item's
last score product, O then leaving by the threads' stores, was 7-15% slower.

K and V have rings of their own (session 24, NOTES v26). When one ring of three slots
held both, a slot's K sat unused for a round after its scores, waiting for its V's
``P V``. Two K buffers keep the next key tile loading as early as the three slots did, and
the 32 KB saved gives each warp group a second Q buffer, so the next item's Q loads
before the current item's epilogue. Against the one ring, two processes each,
alternating (``s24_split_ring_ab.py``, forward ms at 16K tokens, H200): ``local(1)``
0.121 against 0.132, ``local(3)`` 0.215-0.220 against 0.229-0.230, random+global 0.225
against 0.233-0.234, ``butterfly`` 0.243-0.253 against 0.255-0.268; dense and causal even.

Between two items nothing waits on memory (session 33, NOTES v35). A clock trace
(``benchmarks/sessions/s33_trace.py``, H200, D=128) put a 7-tile item at ~3,500 cycles
over 7 dense rounds, nearly all of it in each warp group's path from its last ``P V`` to its
next first scores: the start (~890 cycles: the coordinates' integer divisions, the walk
read from L2) and the epilogue (~2,190: 64 divisions a thread for O = acc / l, the split
slot read from L2, the wait for the O store to read the Q buffer). Now the loader, which
reads the tables anyway, hands each warp group the item's coordinates and walk through
shared memory (:func:`_hand_over_walk`), O is acc * (1 / l), and with two Q buffers the
store finishes under the next item's first scores (:func:`_release_q`). Against the
session-32 form, alternating in both orders (``s33_boundary_ab.py``, forward ms, best of
three, outputs bit for bit equal): ``local(1)`` 0.114 against 0.119-0.122, ``local(3)``
0.209-0.218 against 0.222-0.226, ``butterfly`` 0.240 against 0.247, random+global 0.221
against 0.225, causal 1-2% faster; dense 0.7-1.7% slower, which neither the trace (dense
items' rounds as long as before) nor the two orders explain.

Dropout (session 29, NOTES v31): each warp group draws its key tile's dropout draws
(``hopper_dropout.draw``: the Triton kernels' Philox bits, one call a thread per eight
keys) into a shared buffer of its own while the tile's products run, and after the
softmax zeroes the dropped probabilities where it reads the draws back; the row sums
take every score, and O is scaled by 1 / (1 - p) once, in the epilogue. Calls with
dropout take this kernel at D=64 too (:data:`DROPOUT_HEAD_DIMS`); at D=128 the draws'
32 KB take each warp group's second Q buffer. On an H100 (``s29_dropout_fwd_probe.py``,
B=4, N=4096, 16 heads, bf16, dropout 0.1) the forward took 1.60 ms dense at D=128
against the Triton kernel's 2.07 and cuDNN's 1.82, 1.30 at D=64 against 1.49 and 1.46,
``butterfly`` 1.28-1.46x faster than the Triton kernel, D=64 ``local(3)`` even to 7%
slower. Dropout still takes the forward 1.7-2.4x the time without: by count (not
profiled) the draws' integer products (twenty 32 x 32 -> 64-bit products per eight
scores) are the bound.

Equal rows whose items leave the programs' last round partly idle run the last (batch,
head) groups' items in chunks after every whole item, merged afterwards
(:data:`FILL_LAST_WAVE`, :func:`fill_plan`; session 45, NOTES v46): on an H200 at D=128 a
forward of 1.06 rounds took 30% less time, one of 15.5 rounds up to 2.3% less.
"""

from __future__ import annotations

import os

import torch

from ..layout import schedule
from . import fastlaunch, hopper, hopper_dropout
from .common import ENTRY_SLOT

AVAILABLE = hopper.AVAILABLE

#: Query rows per warp group (two a program), key rows per tile, K buffers, V buffers,
#: Q buffers per warp group. A K buffer is released after its scores, a V buffer a round
#: later, after its ``P V``: two K buffers keep the next key tile loading as three
#: shared K/V slots did, and the 32 KB saved (at D=128) buys each warp group a second Q
#: buffer, so that the next item's Q loads before the current item's epilogue.
BLOCK_M, BLOCK_N, K_STAGES, V_STAGES, Q_BUFS = 64, 128, 2, 3, 2
#: Warps of the kernel's own partition (warp group 0; the other two are workers).
NUM_WARPS = 4
#: Registers a thread, the cap of the whole program (12 warps: three warp groups, the
#: loader's padded). The kernel asks 240 for the worker warp group and 24 for the loader;
#: Triton gives its own partition what they leave (240 as well).
MAXNREG = 168
#: Where not None, at most this many programs (tests: many work items a program on small
#: inputs); else one an SM.
MAX_PROGRAMS = None
#: Whether equal items fill the last wave of the programs' work: where :func:`fill_plan`
#: finds it worth it, the last (batch, head) groups' items run as chunks after every whole
#: item, each chunk's output and LSE going to the workspace that ``launch.forward``
#: merges (``forward.merge_split_rows_kernel``, ``CHUNKED``), as the fused backward fills
#: its own (``hopper_fused.FILL_LAST_WAVE``).
FILL_LAST_WAVE = True
#: Head dims at which calls with dropout run this kernel (with ``SPARSEFLASH_PINGPONG``
#: ``auto``), whichever kernel runs the calls without: the Triton forward elsewhere.
DROPOUT_HEAD_DIMS = (64, 128)
#: At D=64, where ``hopper``'s own kernel (two programs an SM) is faster on dense and
#: short rows, layouts with partial blocks whose rows average at least this many keys take
#: this kernel where the own kernel's variant carries P in the MMA's dtype (calls with key
#: padding, layouts with anti-causal blocks: ``hopper.carries_p_f32``): on an H200 (NOTES
#: v34, session 32) ``causal`` forwards took 1.29-1.30 ms against 1.39-1.40 at N = 16K.
#: Since session 49 (NOTES v50, ``benchmarks/sessions/s49_causal_kernel_ab.py``) the own
#: kernel carries P in float32 through its full tiles elsewhere, and takes every D=64
#: layout without dropout there: ``causal`` 0.338 ms against 0.359 at 4K, 1.214 against
#: 1.261 at 16K, 18.29 against 19.88 at 64K.
D64_MASKED_ROW_KEYS = 2048
#: Whether D=128 calls take ``hopper``'s lazy rescale (:data:`hopper.LAZY_RESCALE`,
#: FlashAttention-4's): a row's maximum moves only past :data:`hopper.RESCALE_SLACK`, and
#: a thread whose two rows keep theirs skips its 64 multiplications a round. Taken
#: (:func:`lazy_rescale`) as ``hopper``'s own kernel takes it at D=64: on layouts with
#: partial blocks (which carry P in float32 here too) whose rows average at least
#: ``hopper.LAZY_RESCALE_ROW_KEYS`` keys (with dropout too: :data:`LAZY_WITH_DROPOUT`).
#: On an H200 (NOTES v57,
#: ``benchmarks/sessions/s56_lazy_d128_ab.py``) ``causal`` forwards took 1.689 ms against
#: 1.719 at 16K tokens and 0.486 against 0.492 at 4K, while layouts of full blocks lost
#: 0.4-3.6% (dense 3.391 against 3.347, ``local(3)`` 0.212 against 0.204).
LAZY_RESCALE = True
#: Whether :func:`lazy_rescale` takes the lazy rescale on calls with dropout too (which
#: draw each tile's keep mask after its softmax and sum the undropped P into the rows'
#: totals, so the rescale's rule is the same). On an H200 (NOTES v58,
#: ``benchmarks/sessions/s57_lazy_dropout_ab.py``) ``causal`` forwards with dropout 0.1
#: took 2.910 ms against 2.963 at 16K tokens and 0.889 against 0.901 at 4K.
LAZY_WITH_DROPOUT = True
#: The head dims at which :func:`lazy_rescale` may take it. D=64 calls with dropout run
#: this kernel too, but there (32 multiplications a thread a round) it did not pay: on an
#: H200 (NOTES v58, ``benchmarks/sessions/s57_lazy_d64_dropout_ab.py``) ``causal`` with
#: dropout 0.1 took 2.291 ms against 2.293 at 16K tokens and 0.710 against 0.703 at 4K.
LAZY_HEAD_DIMS = (128,)

if AVAILABLE:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia.hopper import (mbarrier, warpgroup_mma,
                                                                  warpgroup_mma_wait)

    from .hopper import (_coords_at, _issue_kv_at, _padding, _rescale_rows, _row_walk,
                         _run_offset, _softmax_step, _tile_keys, fill_item, fill_slot,
                         finish_rows, mask_padding, partial_select, store_rows,
                         sync_partition, tma, tma_load)

    #: The ints the loader hands a warp group with each item (:func:`_hand_over_walk`).
    WALK_FIELDS = gl.constexpr(12)

    @gluon.jit
    def _hand_over(slot, value, layout: gl.constexpr):
        """``value`` (an int) into the one-element shared buffer ``slot``, every thread of
        the partition's stores done before any of them goes on (to the barrier arrival
        that publishes it)."""
        slot.store(gl.full([1], value, gl.int32, layout))
        sync_partition()

    @gluon.jit
    def _handed(slot, layout: gl.constexpr):
        """The int in the one-element shared buffer ``slot``."""
        return gl.max(slot.load(layout), 0)

    @gluon.jit
    def _hand_over_walk(item_smem, qi, item, b, h, q_block, q_start, pid_g, full_start, n_full,
                        part_start, n_tiles, run_offset, split_slot, layout: gl.constexpr):
        """A work item for the warp group whose Q buffer ``qi`` the loader fills: its
        number, its coordinates (``hopper._coords_at``, and its group), its walk
        (``hopper._row_walk``), its run's first key and its entry's split slot,
        :data:`WALK_FIELDS` ints from ``item_smem`` row ``qi * WALK_FIELDS`` on (read back
        by :func:`_handed_walk`)."""
        base = qi * WALK_FIELDS
        fields = (item, b, h, q_block, q_start, pid_g, full_start, n_full, part_start, n_tiles,
                  run_offset, split_slot)
        for f in gl.static_range(WALK_FIELDS):
            item_smem.index(base + f).store(gl.full([1], fields[f], gl.int32, layout))
        sync_partition()

    @gluon.jit
    def _handed_walk(item_smem, qi, layout: gl.constexpr):
        """The fields after the item's number that :func:`_hand_over_walk` put at ``qi``."""
        base = qi * WALK_FIELDS
        return (_handed(item_smem.index(base + 1), layout),
                _handed(item_smem.index(base + 2), layout),
                _handed(item_smem.index(base + 3), layout),
                _handed(item_smem.index(base + 4), layout),
                _handed(item_smem.index(base + 5), layout),
                _handed(item_smem.index(base + 6), layout),
                _handed(item_smem.index(base + 7), layout),
                _handed(item_smem.index(base + 8), layout),
                _handed(item_smem.index(base + 9), layout),
                _handed(item_smem.index(base + 10), layout),
                _handed(item_smem.index(base + 11), layout))

    @gluon.jit
    def _release_q(q_empty, qi):
        """With the O store of an earlier item through Q buffer ``qi`` (a buffer number,
        or -1 for none) still reading it: wait for that, then hand the buffer back."""
        if qi >= 0:
            tma.store_wait(0)
            mbarrier.arrive(q_empty.index(qi), count=1)

    @gluon.jit
    def _loader(q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, q_ready, q_empty, item_smem,
                k_ready, v_ready, k_empty, v_empty, FULL_IDX, PART_IDX, SCHED, KV_LIMITS,
                COUNTER, H, H_KV, N, Nk, NUM_Q_BLOCKS, LAYOUT_HEADS, ITEMS_PER_GROUP, ITEMS,
                FILL_FROM, CHUNKS, stride_lim_b, LAYOUT_BLOCK: gl.constexpr,
                ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr, HAS_PADDING: gl.constexpr,
                FILL: gl.constexpr):
        """One warp: takes the program's work items from ``COUNTER`` one by one, and for
        each, its first K/V tile into the ring (a slot both warp groups released), its two
        Q tiles with the item's number, coordinates and walk (:func:`_hand_over_walk`;
        the buffers each warp group released after its O store), then the rest of its K/V
        tiles. The slots free up at the previous item's last ``P V``, the Q buffers only
        after its stores, so the next item's first keys load while the warp groups finish.
        Past the last item, the number ``ITEMS`` tells the warp groups to stop. With
        ``FILL`` the items are numbered as ``hopper.fill_item`` numbers them (the groups
        from ``FILL_FROM`` on in ``CHUNKS`` chunks an item, :data:`FILL_LAST_WAVE`), and a
        chunk's result goes to the workspace: slot ``entry * CHUNKS + chunk`` of group
        ``group - FILL_FROM``, handed to the warp groups as the item's split slot and
        group."""
        BLOCK_M: gl.constexpr = q_desc.block_type.shape[0]
        BLOCK_N: gl.constexpr = k_desc.block_type.shape[0]
        Q_BUFS: gl.constexpr = q_smem.shape[0] // 2  # a warp group's Q buffers
        one: gl.constexpr = gl.BlockedLayout([1], [32], [1], [0])
        ring = 0  # K/V tiles issued by the program so far: the rings' position
        done = 0  # work items finished
        item = gl.atomic_add(COUNTER, 1)
        while item < ITEMS:
            if FILL:
                in_group, pid_g, chunk, chunks = fill_item(item, ITEMS_PER_GROUP, FILL_FROM,
                                                           CHUNKS)
            else:
                in_group = item % ITEMS_PER_GROUP
                pid_g = item // ITEMS_PER_GROUP
                chunk = 0
                chunks = 1
            entry, b, h, q_block, q_start = _coords_at(
                in_group, pid_g, SCHED, H, NUM_Q_BLOCKS, LAYOUT_HEADS, LAYOUT_BLOCK,
                2 * BLOCK_M)
            full_start, n_full, part_start, n_tiles = _row_walk(
                entry, b, KV_LIMITS, stride_lim_b, LAYOUT_BLOCK, BLOCK_N, HAS_PARTIAL,
                HAS_PADDING, chunk, chunks, FILL)
            if FILL:  # a chunk's slot and group in the workspace
                split_slot, pid_g = fill_slot(entry, in_group, pid_g, chunk, chunks,
                                              FILL_FROM, LAYOUT_BLOCK // (2 * BLOCK_M))
            else:
                split_slot = gl.load(entry + ENTRY_SLOT)
            k_row0 = (b * H_KV + h // (H // H_KV)) * Nk
            run_offset = _run_offset(FULL_IDX, full_start, n_full, LAYOUT_BLOCK, ROW_RUNS)
            first = gl.minimum(n_tiles, 1)
            for t in range(first):
                _issue_slot(k_desc, v_desc, k_smem, v_smem, k_ready, v_ready, k_empty,
                            v_empty, FULL_IDX, PART_IDX, t, ring + t, n_full, n_tiles,
                            full_start, part_start, run_offset, k_row0, LAYOUT_BLOCK, BLOCK_N,
                            ROW_RUNS, HAS_PARTIAL)
            for i in gl.static_range(2):
                qi = i * Q_BUFS + done % Q_BUFS
                # A barrier starts in phase 0: the first wait, on the other parity, passes.
                mbarrier.wait(q_empty.index(qi), ((done // Q_BUFS) & 1) ^ 1)
                _hand_over_walk(item_smem, qi, item, b, h, q_block, q_start, pid_g, full_start,
                                n_full, part_start, n_tiles, run_offset, split_slot, one)
                mbarrier.expect(q_ready.index(qi), q_desc.block_type.nbytes)
                tma_load(q_desc, [(b * H + h) * N + q_start + i * BLOCK_M, 0],
                         q_ready.index(qi), q_smem.index(qi))
            for t in range(first, n_tiles):
                _issue_slot(k_desc, v_desc, k_smem, v_smem, k_ready, v_ready, k_empty,
                            v_empty, FULL_IDX, PART_IDX, t, ring + t, n_full, n_tiles,
                            full_start, part_start, run_offset, k_row0, LAYOUT_BLOCK, BLOCK_N,
                            ROW_RUNS, HAS_PARTIAL)
            ring += n_tiles
            done += 1
            item = gl.atomic_add(COUNTER, 1)
        for i in gl.static_range(2):
            qi = i * Q_BUFS + done % Q_BUFS
            mbarrier.wait(q_empty.index(qi), ((done // Q_BUFS) & 1) ^ 1)
            _hand_over(item_smem.index(qi * WALK_FIELDS), ITEMS, one)
            mbarrier.arrive(q_ready.index(qi), count=1)

    @gluon.jit
    def _issue_slot(k_desc, v_desc, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty,
                    FULL_IDX, PART_IDX, t, u, n_full, n_tiles, full_start, part_start,
                    run_offset, k_row0, LAYOUT_BLOCK: gl.constexpr, BLOCK_N: gl.constexpr,
                    ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr):
        """The item's key tile ``t``, the program's ``u``-th, into K buffer
        ``u % K_STAGES`` and V buffer ``u % V_STAGES`` once both warp groups released
        them (K after its scores, V after its ``P V``, about the same round)."""
        K_STAGES: gl.constexpr = k_smem.shape[0]
        V_STAGES: gl.constexpr = v_smem.shape[0]
        mbarrier.wait(k_empty.index(u % K_STAGES), ((u // K_STAGES) & 1) ^ 1)
        mbarrier.wait(v_empty.index(u % V_STAGES), ((u // V_STAGES) & 1) ^ 1)
        _issue_kv_at(k_desc, v_desc, k_smem, v_smem, k_ready, v_ready, FULL_IDX, PART_IDX, t,
                     u % K_STAGES, u % V_STAGES, n_full, n_tiles, full_start, part_start,
                     run_offset, k_row0, LAYOUT_BLOCK, BLOCK_N, ROW_RUNS, HAS_PARTIAL)

    @gluon.jit
    def _wait_turn(turn, WG: gl.constexpr, r):
        """Before warp group WG issues its MMAs of round ``r``: warp group 0 waits for
        warp group 1's round r-1 (its round 0 does not wait), warp group 1 for warp group
        0's round r."""
        if WG == 0:
            mbarrier.wait(turn.index(0), (r & 1) ^ 1)
        else:
            mbarrier.wait(turn.index(1), r & 1)

    @gluon.jit
    def _pass_turn(turn, WG: gl.constexpr):
        """After warp group WG issued its round: the other may issue its own."""
        mbarrier.arrive(turn.index(1 - WG), count=1)

    @gluon.jit
    def _masked(s, j, n_full, part_start, PART_IDX, PART_CODE, q_start, Nk,
                LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                s_layout: gl.constexpr):
        """Scores ``s`` of tile j, a partial block's, with its mask's leftouts at -inf.
        (With the anti-causal compare's branch whatever the layout: left out, ptxas spilled
        16 bytes at D=128 and the forward ran 1-3% slower on ``causal`` at 1K and 4K and
        on ragged ends; NOTES v49.)"""
        SUB: gl.constexpr = LAYOUT_BLOCK // BLOCK_N
        listed = part_start + (j - n_full) // SUB
        key_start = gl.load(PART_IDX + listed) * LAYOUT_BLOCK + (j % SUB) * BLOCK_N
        return partial_select(s, float("-inf"), gl.load(PART_CODE + listed), q_start, key_start,
                              Nk, BLOCK_M, BLOCK_N, s_layout)

    @gluon.jit
    def _draw_tile(draws, seed_lo, seed_hi, bh, q_start, j, n_full, full_start, part_start,
                   FULL_IDX, PART_IDX, run_offset, LAYOUT_BLOCK: gl.constexpr,
                   BLOCK_N: gl.constexpr, ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr):
        """Dropout's draws of the walk's key tile ``j`` for this warp group's query rows
        from ``q_start`` (``hopper_dropout.draw``) into ``draws`` (BLOCK_M, BLOCK_N)
        uint16, once every thread of the warp group has read the last tile's from it."""
        key_start = _tile_keys(j, n_full, full_start, part_start, FULL_IDX, PART_IDX,
                               run_offset, LAYOUT_BLOCK, BLOCK_N, ROW_RUNS, HAS_PARTIAL)
        sync_partition()
        hopper_dropout.draw(draws, seed_lo, seed_hi, bh, key_start, q_start)

    @gluon.jit
    def _dropped(p, draws, keep_threshold, s_layout: gl.constexpr):
        """The probabilities ``p`` (BLOCK_M, BLOCK_N) with the scores dropout drops at 0.
        The kept ones are not scaled by 1 / (1 - p) here: the epilogue scales O once."""
        kept = hopper_dropout.kept(draws, keep_threshold, s_layout, KEYS_FIRST=False)
        return gl.where(kept, p, 0.0)

    @gluon.jit
    def _step(acc, p, m_i, l_i, j, ring, rounds, WG: gl.constexpr, q_tile, k_smem, v_smem, k_ready,
              v_ready, k_empty, v_empty, turn, zero_s, n_full, full_start, part_start, FULL_IDX,
              PART_IDX, PART_CODE, run_offset, q_start, Nk, qk_scale, kpm_row, first_padding,
              draws, seed_lo, seed_hi, bh, keep_threshold,
              LAYOUT_BLOCK: gl.constexpr, MASKED: gl.constexpr, PADDED: gl.constexpr,
              ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr, HAS_DROPOUT: gl.constexpr,
              s_layout: gl.constexpr, o_layout: gl.constexpr, p_layout: gl.constexpr,
              P_F32: gl.constexpr = False, LAZY: gl.constexpr = False,
              SLACK: gl.constexpr = 8.0):
        """Round j of warp group WG's work item (the program's round ``rounds + j``; the
        item's key tile j is the ring's ``ring + j``): tile j's scores and tile j-1's
        ``P V`` issued (``MASKED``: tile j is a partial block's; ``PADDED``: its padding
        keys masked, ``hopper.mask_padding``), with ``HAS_DROPOUT`` tile j's dropout draws
        made while they run, tile j's K buffer released once its scores are done, tile j's
        softmax while ``P V`` runs (dropped scores at 0 after the row sums took them), then
        tile j-1's V buffer released. Returns the new ``acc, p, m_i, l_i``. ``p`` comes and
        goes as the MMA's operand (``p_layout``, the inputs' dtype), or with ``P_F32`` as
        the softmax gives it (float32, ``s_layout``), cast at the top of the round.
        ``LAZY``: ``hopper``'s lazy rescale (:func:`lazy_rescale`), its slack ``SLACK``."""
        if P_F32:
            p = gl.convert_layout(p.to(q_tile.dtype), p_layout)
        K_STAGES: gl.constexpr = k_smem.shape[0]
        V_STAGES: gl.constexpr = v_smem.shape[0]
        BLOCK_N: gl.constexpr = k_smem.shape[1]
        BLOCK_M: gl.constexpr = zero_s.shape[0]
        u = ring + j
        slot = u % K_STAGES
        prev = (u - 1) % V_STAGES
        _wait_turn(turn, WG, rounds + j)
        mbarrier.wait(k_ready.index(slot), (u // K_STAGES) & 1)
        s = warpgroup_mma(q_tile, k_smem.index(slot).permute((1, 0)), zero_s,
                          use_acc=False, is_async=True)
        mbarrier.wait(v_ready.index(prev), ((u - 1) // V_STAGES) & 1)
        acc = warpgroup_mma(p, v_smem.index(prev), acc, is_async=True)
        _pass_turn(turn, WG)
        if HAS_DROPOUT:
            # ALU work under this warp group's products (and the other's softmax).
            _draw_tile(draws, seed_lo, seed_hi, bh, q_start, j, n_full, full_start,
                       part_start, FULL_IDX, PART_IDX, run_offset, LAYOUT_BLOCK, BLOCK_N,
                       ROW_RUNS, HAS_PARTIAL)
        # The scores were issued first: waiting for all but one group leaves P V running.
        s = warpgroup_mma_wait(num_outstanding=1, deps=(s,))
        mbarrier.arrive(k_empty.index(slot), count=1)
        if MASKED:
            s = _masked(s, j, n_full, part_start, PART_IDX, PART_CODE, q_start, Nk,
                        LAYOUT_BLOCK, BLOCK_M, BLOCK_N, s_layout)
        if PADDED:
            s = mask_padding(s, j, n_full, full_start, part_start, FULL_IDX, PART_IDX,
                             run_offset, kpm_row, first_padding, Nk, LAYOUT_BLOCK, BLOCK_N,
                             ROW_RUNS, HAS_PARTIAL, s_layout)
        # A masked tile (partial or padded) can leave a row at -inf: the guard.
        p_next, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale, MASKED or PADDED,
                                                LAZY, SLACK)
        if HAS_DROPOUT:
            p_next = _dropped(p_next, draws, keep_threshold, s_layout)
        acc, p = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))
        mbarrier.arrive(v_empty.index(prev), count=1)
        acc = _rescale_rows(acc, alpha, o_layout, LAZY)
        if P_F32:
            p = p_next
        else:
            p = gl.convert_layout(p_next.to(q_tile.dtype), p_layout)
        return acc, p, m_i, l_i

    @gluon.jit
    def _consume(WG: gl.constexpr, q_desc, k_desc, o_desc, q_smem, k_smem, v_smem, q_ready,
                 q_empty, item_smem, k_ready, v_ready, k_empty, v_empty, turn, draws_smem, O,
                 LSE, FULL_IDX, PART_IDX, PART_CODE, WS_O, WS_LSE, KPM, KV_LIMITS, SEED,
                 qk_scale, keep_threshold, drop_scale, stride_ob, stride_oh, stride_on, H, N,
                 Nk, NUM_Q_BLOCKS, LAYOUT_HEADS, WS_SLOTS, ITEMS, stride_kpm_b, stride_lim_b,
                 LAYOUT_BLOCK: gl.constexpr, ROW_RUNS: gl.constexpr, HAS_PARTIAL: gl.constexpr,
                 HAS_PADDING: gl.constexpr, HAS_DROPOUT: gl.constexpr,
                 TMA_STORE: gl.constexpr, LAZY: gl.constexpr, SLACK: gl.constexpr):
        """Warp group WG (query rows ``WG * BLOCK_M`` on of each work item's tile): for
        each item the loader hands it (with its coordinates and walk, so that the schedule
        and walk tables are not read between two items), the online softmax over the
        walk's key tiles, then its rows of O and LSE (or of a split row's workspace)
        stored, as ``hopper.hopper_forward_kernel`` stores them, and its Q buffer handed
        back (with two Q buffers a warp group, once the O store has read it, under the
        next item's first scores). With ``HAS_PADDING`` the walk is cut as the loader cuts
        it, the sequence's first padding key is read at each item's start, and the tiles
        that reach it mask their padding keys. With ``HAS_DROPOUT`` each tile's scores are
        dropped as the Triton forward drops them (``hopper_dropout``'s draws, in
        ``draws_smem``'s buffer WG), after the row sums took them, and O is scaled by
        ``drop_scale`` = 1 / (1 - p) once, in the epilogue. ``LAZY``: ``hopper``'s lazy
        rescale, its slack ``SLACK`` (:func:`lazy_rescale`)."""
        BLOCK_M: gl.constexpr = q_desc.block_type.shape[0]
        D: gl.constexpr = q_desc.block_type.shape[1]
        BLOCK_N: gl.constexpr = k_desc.block_type.shape[0]
        K_STAGES: gl.constexpr = k_smem.shape[0]
        V_STAGES: gl.constexpr = v_smem.shape[0]
        dtype: gl.constexpr = q_desc.dtype
        s_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BLOCK_N, 16])
        o_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, D, 16])
        p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout,
                                                     k_width=2)
        rows_s: gl.constexpr = gl.SliceLayout(1, s_layout)
        one: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
        # Whether the full tiles' loop carries P in float32, cast at the top of a round
        # (``_step``'s ``P_F32``), as ``hopper``'s own forward does with partial blocks:
        # carried in the MMA's dtype through the two loops, P took 32 byte swaps (PRMT) a
        # round (Triton 3.6), 250-1,100 with dropout. Cast at the top, its 32 conversions
        # land inside the warp group's turn, before its P V: on an H200 (NOTES v50) that
        # made D=64 ``causal`` 3% slower without dropout, while with dropout (26% faster
        # at 4K) and at D=128 (1-3%) it gained.
        P_F32: gl.constexpr = HAS_PARTIAL and (HAS_DROPOUT or D == 128)
        zero_s = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, s_layout)
        draws = draws_smem.index(WG)  # (never touched without dropout)
        if HAS_DROPOUT:
            seed_lo, seed_hi = hopper_dropout.seed_halves(SEED)
        else:
            seed_lo = 0
            seed_hi = 0

        Q_BUFS: gl.constexpr = q_smem.shape[0] // 2  # this warp group's Q buffers
        # With one Q buffer the loader could not fetch the next item's Q before the store.
        DEFER_STORE: gl.constexpr = Q_BUFS > 1
        ring = 0    # K/V tiles the program consumed so far: the rings' position
        rounds = 0  # rounds of MMAs each warp group issued so far (the turns' count)
        done = 0    # work items finished
        qi = WG * Q_BUFS  # the Q buffer (and its barriers) of the current item
        stored = -1  # with DEFER_STORE, the Q buffer the last item's O store reads, if any
        mbarrier.wait(q_ready.index(qi), 0)
        item = _handed(item_smem.index(qi * WALK_FIELDS), one)
        while item < ITEMS:
            q_tile = q_smem.index(qi)
            (b, h, q_block, q_start, pid_g, full_start, n_full, part_start, n_tiles,
             run_offset, split_slot) = _handed_walk(item_smem, qi, one)
            q_start += WG * BLOCK_M
            kpm_row, first_padding = _padding(KPM, KV_LIMITS, b, stride_kpm_b, stride_lim_b,
                                              LAYOUT_HEADS * NUM_Q_BLOCKS, Nk, HAS_PADDING)
            bh = b * H + h  # dropout's Philox counter, as the Triton forward's
            acc = gl.zeros([BLOCK_M, D], gl.float32, o_layout)
            m_i = gl.full([BLOCK_M], float("-inf"), gl.float32, rows_s)
            l_i = gl.zeros([BLOCK_M], gl.float32, rows_s)
            if n_tiles > 0:  # a row with no key block skips to the epilogue (O = 0)
                # Round 0: tile 0's scores alone.
                _wait_turn(turn, WG, rounds)
                mbarrier.wait(k_ready.index(ring % K_STAGES), (ring // K_STAGES) & 1)
                s = warpgroup_mma(q_tile, k_smem.index(ring % K_STAGES).permute((1, 0)),
                                  zero_s, use_acc=False, is_async=True)
                _pass_turn(turn, WG)
                if DEFER_STORE:  # the last item's O store ends under these scores
                    _release_q(q_empty, stored)
                if HAS_DROPOUT:
                    _draw_tile(draws, seed_lo, seed_hi, bh, q_start, 0, n_full, full_start,
                               part_start, FULL_IDX, PART_IDX, run_offset, LAYOUT_BLOCK,
                               BLOCK_N, ROW_RUNS, HAS_PARTIAL)
                s = warpgroup_mma_wait(num_outstanding=0, deps=(s,))
                mbarrier.arrive(k_empty.index(ring % K_STAGES), count=1)
                if HAS_PARTIAL:
                    if n_full == 0:
                        s = _masked(s, 0, n_full, part_start, PART_IDX, PART_CODE, q_start,
                                    Nk, LAYOUT_BLOCK, BLOCK_M, BLOCK_N, s_layout)
                if HAS_PADDING:
                    s = mask_padding(s, 0, n_full, full_start, part_start, FULL_IDX, PART_IDX,
                                     run_offset, kpm_row, first_padding, Nk, LAYOUT_BLOCK,
                                     BLOCK_N, ROW_RUNS, HAS_PARTIAL, s_layout)
                p, m_i, l_i, alpha = _softmax_step(s, m_i, l_i, qk_scale,
                                                   HAS_PARTIAL or HAS_PADDING, LAZY, SLACK)
                if HAS_DROPOUT:
                    p = _dropped(p, draws, keep_threshold, s_layout)
                if not P_F32:
                    p = gl.convert_layout(p.to(dtype), p_layout)
                # Full tiles, then partial ones (the mask and the -inf guard stay out of
                # the full tiles' loop; after a full tile 0 no row is at -inf, but for key
                # padding, whose mask can reach any tile).
                for j in range(1, n_full):
                    acc, p, m_i, l_i = _step(acc, p, m_i, l_i, j, ring, rounds, WG, q_tile,
                                             k_smem, v_smem, k_ready, v_ready, k_empty, v_empty,
                                             turn, zero_s, n_full, full_start, part_start,
                                             FULL_IDX, PART_IDX, PART_CODE, run_offset, q_start,
                                             Nk, qk_scale, kpm_row, first_padding, draws,
                                             seed_lo, seed_hi, bh, keep_threshold,
                                             LAYOUT_BLOCK, False, HAS_PADDING, ROW_RUNS,
                                             HAS_PARTIAL, HAS_DROPOUT, s_layout, o_layout,
                                             p_layout, P_F32, LAZY, SLACK)
                if HAS_PARTIAL:
                    if P_F32:
                        p = gl.convert_layout(p.to(dtype), p_layout)
                    for j in range(gl.maximum(n_full, 1), n_tiles):
                        acc, p, m_i, l_i = _step(acc, p, m_i, l_i, j, ring, rounds, WG,
                                                 q_tile, k_smem, v_smem, k_ready, v_ready,
                                                 k_empty, v_empty, turn, zero_s, n_full,
                                                 full_start, part_start, FULL_IDX, PART_IDX,
                                                 PART_CODE, run_offset, q_start, Nk, qk_scale,
                                                 kpm_row, first_padding, draws, seed_lo,
                                                 seed_hi, bh, keep_threshold, LAYOUT_BLOCK,
                                                 True, HAS_PADDING, ROW_RUNS, HAS_PARTIAL,
                                                 HAS_DROPOUT, s_layout, o_layout, p_layout,
                                                 False, LAZY, SLACK)
                # The last round: the last tile's P V.
                last = ring + n_tiles - 1
                _wait_turn(turn, WG, rounds + n_tiles)
                mbarrier.wait(v_ready.index(last % V_STAGES), (last // V_STAGES) & 1)
                acc = warpgroup_mma(p, v_smem.index(last % V_STAGES), acc, is_async=True)
                _pass_turn(turn, WG)
                acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, p))[0]
                mbarrier.arrive(v_empty.index(last % V_STAGES), count=1)
                ring += n_tiles
                rounds += n_tiles + 1
            elif DEFER_STORE:
                _release_q(q_empty, stored)

            if HAS_DROPOUT:
                acc = acc * drop_scale
            # Through this warp group's own Q buffer (only its MMAs read it, all
            # completed); once the store has read it, the loader may fetch a later item's
            # Q into it: at once, or with DEFER_STORE under the next item's first scores.
            out, lse = finish_rows(acc, m_i, l_i, o_layout)
            store_rows(out, lse, q_tile, o_desc, O, LSE, WS_O, WS_LSE, split_slot, b, h,
                       q_block, q_start, pid_g, stride_ob, stride_oh, stride_on, H, N,
                       WS_SLOTS, LAYOUT_BLOCK, TMA_STORE, not DEFER_STORE, s_layout,
                       o_layout)
            if DEFER_STORE:
                stored = qi
            else:
                mbarrier.arrive(q_empty.index(qi), count=1)
            done += 1
            qi = WG * Q_BUFS + done % Q_BUFS
            mbarrier.wait(q_ready.index(qi), (done // Q_BUFS) & 1)
            item = _handed(item_smem.index(qi * WALK_FIELDS), one)
        if DEFER_STORE:
            _release_q(q_empty, stored)

    @gluon.jit(do_not_specialize=["keep_threshold"])
    def pingpong_forward_kernel(
            O, LSE, FULL_IDX, PART_IDX, PART_CODE, SCHED, WS_O, WS_LSE, KPM, KV_LIMITS,
            COUNTER, SEED, q_desc, k_desc, v_desc, o_desc, qk_scale, keep_threshold,
            drop_scale, stride_ob, stride_oh, stride_on, H, H_KV, N, Nk, NUM_Q_BLOCKS,
            LAYOUT_HEADS, WS_SLOTS, ITEMS_PER_GROUP, ITEMS, FILL_FROM, CHUNKS, stride_kpm_b,
            stride_lim_b, LAYOUT_BLOCK: gl.constexpr, K_STAGES: gl.constexpr,
            V_STAGES: gl.constexpr, Q_BUFS: gl.constexpr, ROW_RUNS: gl.constexpr,
            HAS_PARTIAL: gl.constexpr, HAS_PADDING: gl.constexpr, HAS_DROPOUT: gl.constexpr,
            TMA_STORE: gl.constexpr, FILL: gl.constexpr, LAZY_RESCALE: gl.constexpr,
            RESCALE_SLACK: gl.constexpr, num_warps: gl.constexpr):
        """``ITEMS`` work items, (schedule entry, 128-row query tile) x (batch, head
        repeat), on however many programs the grid has: item ``g * ITEMS_PER_GROUP + i``
        is what ``hopper.hopper_forward_kernel`` does as program (i, g), and each program
        takes the next item from ``COUNTER`` (int32, zero at launch) whenever its loader is
        free for one, so the items start in that kernel's launch order (each group's
        entries longest first, the groups one after the other, for its K/V in L2) and a
        program that drew long items takes fewer. Otherwise that kernel's arguments, but
        for its tile constexprs, which come from the descriptors: q_desc and o_desc in
        tiles of :data:`BLOCK_M` rows (a warp group's), k_desc and v_desc of
        :data:`BLOCK_N`; key padding (``KPM``, ``KV_LIMITS`` and their batch strides)
        as that kernel takes it. With ``HAS_DROPOUT``: ``SEED`` ((1,) int64), the 16-bit
        draw a kept score reaches (``keep_threshold``) and 1 / (1 - p) (``drop_scale``),
        the scores dropped as ``forward.attention_forward_kernel`` drops them; without, a
        placeholder tensor and any two numbers (never read). With ``FILL`` the groups from
        ``FILL_FROM`` on run their items in ``CHUNKS`` chunks after every whole item
        (:data:`FILL_LAST_WAVE`; the loader's). ``LAZY_RESCALE``: ``hopper``'s lazy
        rescale, a row's maximum moving only past ``RESCALE_SLACK`` (:func:`lazy_rescale`)."""
        dtype: gl.constexpr = q_desc.dtype
        BLOCK_M: gl.constexpr = q_desc.block_type.shape[0]
        D: gl.constexpr = q_desc.block_type.shape[1]
        BLOCK_N: gl.constexpr = k_desc.block_type.shape[0]
        # Warp group w's Q buffers are w * Q_BUFS on.
        q_smem = gl.allocate_shared_memory(dtype, [2 * Q_BUFS, BLOCK_M, D], q_desc.layout)
        k_smem = gl.allocate_shared_memory(dtype, [K_STAGES, BLOCK_N, D], k_desc.layout)
        v_smem = gl.allocate_shared_memory(dtype, [V_STAGES, BLOCK_N, D], v_desc.layout)
        q_ready = gl.allocate_shared_memory(gl.int64, [2 * Q_BUFS, 1],
                                            mbarrier.MBarrierLayout())
        q_empty = gl.allocate_shared_memory(gl.int64, [2 * Q_BUFS, 1],
                                            mbarrier.MBarrierLayout())
        k_ready = gl.allocate_shared_memory(gl.int64, [K_STAGES, 1], mbarrier.MBarrierLayout())
        k_empty = gl.allocate_shared_memory(gl.int64, [K_STAGES, 1], mbarrier.MBarrierLayout())
        v_ready = gl.allocate_shared_memory(gl.int64, [V_STAGES, 1], mbarrier.MBarrierLayout())
        v_empty = gl.allocate_shared_memory(gl.int64, [V_STAGES, 1], mbarrier.MBarrierLayout())
        turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        # Each warp group's current item and its walk, from the loader (published by its
        # q_ready).
        item_smem = gl.allocate_shared_memory(gl.int32, [2 * Q_BUFS * WALK_FIELDS, 1],
                                              gl.SwizzledSharedLayout(1, 1, 1, [0]))
        if HAS_DROPOUT:  # each warp group's draws of its current key tile
            draws_smem = gl.allocate_shared_memory(gl.uint16, [2, BLOCK_M, BLOCK_N],
                                                   hopper_dropout.DRAWS_LAYOUT)
        else:  # a placeholder, never touched
            draws_smem = item_smem
        for i in gl.static_range(2 * Q_BUFS):
            mbarrier.init(q_ready.index(i), count=1)
            mbarrier.init(q_empty.index(i), count=1)
        for i in gl.static_range(2):
            mbarrier.init(turn.index(i), count=1)
        # A buffer's "empty" barrier counts one arrival from each warp group.
        for i in gl.static_range(K_STAGES):
            mbarrier.init(k_ready.index(i), count=1)
            mbarrier.init(k_empty.index(i), count=2)
        for i in gl.static_range(V_STAGES):
            mbarrier.init(v_ready.index(i), count=1)
            mbarrier.init(v_empty.index(i), count=2)
        # Each partition takes what it reads, written out in its call: a tuple built
        # beforehand would turn the constexprs into run-time values (a literal, the warp
        # group's number, stays one).
        gl.warp_specialize([
            (_consume, (0, q_desc, k_desc, o_desc, q_smem, k_smem, v_smem, q_ready, q_empty,
                        item_smem, k_ready, v_ready, k_empty, v_empty, turn, draws_smem, O, LSE,
                        FULL_IDX, PART_IDX, PART_CODE, WS_O, WS_LSE, KPM, KV_LIMITS, SEED,
                        qk_scale, keep_threshold, drop_scale, stride_ob, stride_oh, stride_on,
                        H, N, Nk, NUM_Q_BLOCKS, LAYOUT_HEADS, WS_SLOTS, ITEMS, stride_kpm_b,
                        stride_lim_b, LAYOUT_BLOCK, ROW_RUNS, HAS_PARTIAL, HAS_PADDING,
                        HAS_DROPOUT, TMA_STORE, LAZY_RESCALE, RESCALE_SLACK)),
            (_consume, (1, q_desc, k_desc, o_desc, q_smem, k_smem, v_smem, q_ready, q_empty,
                        item_smem, k_ready, v_ready, k_empty, v_empty, turn, draws_smem, O, LSE,
                        FULL_IDX, PART_IDX, PART_CODE, WS_O, WS_LSE, KPM, KV_LIMITS, SEED,
                        qk_scale, keep_threshold, drop_scale, stride_ob, stride_oh, stride_on,
                        H, N, Nk, NUM_Q_BLOCKS, LAYOUT_HEADS, WS_SLOTS, ITEMS, stride_kpm_b,
                        stride_lim_b, LAYOUT_BLOCK, ROW_RUNS, HAS_PARTIAL, HAS_PADDING,
                        HAS_DROPOUT, TMA_STORE, LAZY_RESCALE, RESCALE_SLACK)),
            (_loader, (q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, q_ready, q_empty, item_smem,
                       k_ready, v_ready, k_empty, v_empty, FULL_IDX, PART_IDX, SCHED, KV_LIMITS,
                       COUNTER, H, H_KV, N, Nk, NUM_Q_BLOCKS, LAYOUT_HEADS, ITEMS_PER_GROUP,
                       ITEMS, FILL_FROM, CHUNKS, stride_lim_b, LAYOUT_BLOCK, ROW_RUNS,
                       HAS_PARTIAL, HAS_PADDING, FILL)),
        ], [4, 1], [240, 24])


def choice() -> str:
    """``SPARSEFLASH_PINGPONG`` (``auto``, ``0`` or ``1``; default ``auto``): which calls
    the Gluon forward runs this kernel for (``auto``: D=128, and D=64 layouts with long
    masked rows, :func:`chosen`; ``1``: every D=64 one too; ``0``: never)."""
    value = os.environ.get("SPARSEFLASH_PINGPONG", "auto")
    if value not in ("auto", "0", "1"):
        raise ValueError(f"SPARSEFLASH_PINGPONG must be auto, 0 or 1, not {value!r}")
    return value


def chosen(head_dim: int, dropout: bool = False, masked_row_keys: int = 0) -> bool:
    """Whether the Gluon forward (``hopper``, where it runs) takes this kernel at
    ``head_dim``, for calls with ``dropout`` or without, on a layout whose rows average
    ``masked_row_keys`` keys if it has partial blocks and ``hopper``'s own kernel would
    carry P in the MMA's dtype there (0 otherwise; ``hopper.bind_forward``): with
    ``SPARSEFLASH_PINGPONG=auto`` at D=128, and at D=64 with dropout or from
    :data:`D64_MASKED_ROW_KEYS` masked keys a row on. Only this kernel of the Gluon
    forwards drops scores: with ``SPARSEFLASH_PINGPONG=0`` calls with dropout run the
    Triton forward."""
    value = choice()
    if not AVAILABLE or value == "0":
        return False
    if value == "1":
        return True
    if dropout:
        return head_dim in DROPOUT_HEAD_DIMS
    return head_dim == 128 or (head_dim == 64 and masked_row_keys >= D64_MASKED_ROW_KEYS)


def lazy_rescale(head_dim: int, has_partial: bool, row_keys: int,
                 has_dropout: bool = False) -> bool:
    """Whether :func:`pingpong_forward_kernel` takes :data:`LAZY_RESCALE` at ``head_dim``,
    on a layout with partial blocks or not whose rows average ``row_keys`` keys, for calls
    with dropout or without: at :data:`LAZY_HEAD_DIMS` (D=128), with partial blocks, from
    ``hopper.LAZY_RESCALE_ROW_KEYS`` keys on, with dropout where
    :data:`LAZY_WITH_DROPOUT`."""
    return (bool(LAZY_RESCALE) and head_dim in LAZY_HEAD_DIMS and bool(has_partial)
            and (not has_dropout or bool(LAZY_WITH_DROPOUT))
            and row_keys >= hopper.LAZY_RESCALE_ROW_KEYS)


def fill_plan(q: torch.Tensor, programs: int, groups: int, layout_block: int,
              uniform_blocks: int) -> tuple:
    """-> ``(fill_from, chunks)`` for :func:`bind_forward`: ``schedule.fill_last_wave`` of
    its work items (``programs`` schedule entries of ``layout_block // 128`` items, each
    walking ``uniform_blocks`` blocks (``Layout.uniform_blocks``), for each of
    ``groups``) on the persistent programs, one an SM, each running one item at a time;
    ``(groups, 1)`` (no chunks) with :data:`FILL_LAST_WAVE` off, for rows of unequal
    length (``uniform_blocks`` 0) and with :data:`MAX_PROGRAMS` set."""
    if not FILL_LAST_WAVE or uniform_blocks == 0 or MAX_PROGRAMS is not None:
        return groups, 1
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    return schedule.fill_last_wave(groups, programs * (layout_block // (2 * BLOCK_M)),
                                   uniform_blocks * (layout_block // BLOCK_N), sms)


if AVAILABLE:
    _KERNEL = fastlaunch.Kernel(pingpong_forward_kernel)


def bind_forward(q, k, o, programs, groups, num_q_blocks, layout_heads, ws_slots, layout_block,
                 row_runs, has_partial, has_padding=False, stride_kpm_b=0, stride_lim_b=0,
                 has_dropout=False, fill=None, row_keys=0) -> "fastlaunch.Launch":
    """:func:`pingpong_forward_kernel` bound as ``hopper.bind_forward`` binds its kernel
    (which calls this one where :func:`chosen`): ``programs`` schedule entries of
    ``layout_block // 128`` work items each, for each of ``groups``, on one program an SM
    (at most :data:`MAX_PROGRAMS`), for calls with dropout or without. Its tensors end
    with the item counter (one int32, zeroed for every launch) and the dropout seed (or a
    placeholder), its scalars with the keep threshold and 1 / (1 - p). ``fill``
    (:func:`fill_plan`; None: none) runs the groups from ``fill_from`` on in ``chunks``
    chunks an item, their results in ``programs * chunks`` workspace slots a group, for
    ``groups - fill_from`` groups, in place of ``ws_slots``. ``row_keys``: the keys the
    layout's rows average (:func:`lazy_rescale`)."""
    B, H, N, D = q.shape
    # The draws' buffers (32 KB) take the place of each warp group's second Q buffer at
    # D=128, where shared memory is full; at D=64 there is room for both.
    q_bufs = 1 if has_dropout and D == 128 else Q_BUFS
    H_kv, Nk = k.shape[1], k.shape[2]
    per_group = programs * (layout_block // (2 * BLOCK_M))
    fill_from, chunks = fill if fill is not None else (groups, 1)
    if chunks > 1:
        ws_slots = programs * chunks
    items = schedule.filled_programs(groups, per_group, (fill_from, chunks))
    grid = min(items, torch.cuda.get_device_properties(q.device).multi_processor_count)
    if MAX_PROGRAMS is not None:
        grid = min(grid, MAX_PROGRAMS)
    return _KERNEL.bind(
        (grid,), (q.dtype,),
        (*o.stride()[:3], H, H_kv, N, Nk, num_q_blocks, layout_heads, ws_slots, per_group,
         items, fill_from, chunks, stride_kpm_b, stride_lim_b),
        LAYOUT_BLOCK=layout_block, K_STAGES=K_STAGES, V_STAGES=V_STAGES, Q_BUFS=q_bufs,
        ROW_RUNS=row_runs, HAS_PARTIAL=has_partial, HAS_PADDING=has_padding,
        HAS_DROPOUT=has_dropout, TMA_STORE=hopper.TMA_STORE, FILL=chunks > 1,
        LAZY_RESCALE=lazy_rescale(D, has_partial, row_keys, has_dropout),
        RESCALE_SLACK=hopper.RESCALE_SLACK,
        num_warps=NUM_WARPS,
        maxnreg=MAXNREG)
