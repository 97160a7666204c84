"""The whole backward in one warp-specialised Gluon kernel on Hopper GPUs.

The two-kernel backward (dQ by query rows, dK/dV by key columns) does seven matrix
products per (query tile, key tile) pair: the dQ kernel computes S and dP again. This
kernel does FlashAttention-2's five and adds each tile's ``dQ = dS K`` into a float32
accumulator with TMA reductions (``cp.reduce.async.bulk.tensor``), as FlashAttention-3's
backward does (Shah et al., 2024). It runs on the column schedule of
``hopper_backward.hopper_dkdv_kernel`` (one program per (key tile, kv head group), every
query head of its GQA group walked in one loop, split columns to the workspace) in
warp-specialised partitions (``gl.warp_specialize``):

* the consumers, a warp group per 64 key rows of the program's tile (two on 128), each
  a partition of its own: per query tile ``S^T = K Q^T`` and ``dP^T = V dO^T`` issued
  together, ``P^T`` from registers into ``dV += P^T dO``, ``dS^T`` (scaled by the softmax
  scale) once to shared memory as the left operand of both ``dQ_tile = dS K`` and
  ``dK += dS^T Q``; each computes its own columns of dQ's tile, which needs every warp
  group's rows of dS (exchanged through two buffers, the warp groups meeting on a named
  barrier: :data:`NAMED_EXCHANGE`), into a float32 buffer of its own, and moves on (its
  dK product, which needs only its own rows, is issued before the exchange and runs
  during the wait: :data:`DK_EARLY`, 0.8-4.3% off the backward on an H100, NOTES v40);
* the loader (1 warp): K and V once, then each tile's Q, dO, LSE and delta into a ring of
  ``STAGES`` buffers, reading the table as it issues the copies, each slot refilled as
  soon as the consumers release it (LSE and delta from shared memory took 4-7% off the
  backward against the consumers loading them from global memory);
* the dQ adder (1 warp): each buffer added into the accumulator, then handed back (in
  calls with dropout both hand-offs are on named barriers: :data:`NAMED_DQ`).

The workers keep 24 registers a thread and the consumers get the rest (:data:`TILES`).
Serial, the same five products lost to the two kernels (NOTES v19: the waits for each
reduction and copy sat on the loop's critical path, and at D=128 it spilled). Warp
specialised, with both consumer warp groups in one partition, on an H200 at D=128 (N=16K,
16 heads, bf16) the kernel took 10.6-10.8 ms where the two kernels took 12.5-13.7 (dense)
and 0.69 against 0.87 on ``local(3)`` (NOTES v21-v22). In one partition every mbarrier
arrive synchronised all 256 consumer threads, five times a tile, and held the two warp
groups in step; as two partitions (NOTES v23, ``benchmarks/sessions/s21_split_ab.py``)
the kernel took 1-9% less: dense 10.4-10.7 ms, causal 5.2 against 5.7, ``local(3)``
0.67-0.68 against 0.69-0.70, ``butterfly`` 0.76-0.78 against 0.80-0.83, random+global 0.66
against 0.68. The two warp groups still meet once a tile, at the dS exchange; the slot
releases and dQ hand-offs, which in one partition synchronised all 256 threads, now
synchronise each warp group alone. At D=64, on 64 x 64 tiles (one consumer warp group,
two programs an SM), it first measured from 16% faster (causal) to 9% slower
(``local(3)``) than the two kernels by layout (``s19_fused_ab.py``, ``s19-call13.sh``).
A tile's dK and dV leave by TMA stores through shared buffers the loop no longer needs
(dV through the warp group's rows of V, dK through a Q/dO slot) where the threads' pointer
stores had cost short columns most (NOTES v23, ``s21_store_ab.py``): at D=128 ``local(3)``
0.63 against 0.68-0.70 ms, ``butterfly`` 0.71-0.73 against 0.77-0.82, random+global
0.61-0.63 against 0.67, dense and causal even; at D=64 it is then 1-16% faster than the
two kernels on every layout, so it runs by default at both head dims. At D=64 it then took
the D=128 program's shape, two consumer warp groups on 128 key rows (one program an SM),
with 128 query rows a step: half the Q/dO copies and dQ reductions per product of two
64 x 64 programs, and products twice as long between the warp group's waits; kernel ms
on an H200 against 64 x 64 tiles, dense 6.13-6.20 against 6.70-6.73, causal 3.19-3.20
against 3.45-3.60, ``butterfly`` 0.44 against 0.45-0.46, ``local(3)`` and random+global
even (the same order on an H100); 128 key rows with 64 query rows a step were even on
causal and 2-10% slower than 64 x 64 elsewhere (NOTES v24, ``s22_d64_tiles_ab.py``). The
delta kernel (which also zeroes 4 bytes a dQ element) and dQ's cast take 0.12 ms at
D=128, 15-20% of a ``local(3)`` backward. Both take the heads last to first
(:data:`PASSES_LAST_HEAD_FIRST`), which on an H100 took 0.7-1.5% off the sparse backwards
at D=64 and up to 1% at D=128 (NOTES v37). The fused kernel and the launches after it
start by programmatic dependent launch (:data:`PDL`; NOTES v39).

A grid of equal columns whose count leaves the last wave of programs partly idle runs its
last (batch, kv head) groups' columns in chunks after all the whole columns, their dK and
dV summed afterwards (:data:`FILL_LAST_WAVE`, :func:`fill_plan`; NOTES v46): on an H200 a
backward of 1.06 waves took 28-31% less time, one of 15.5 waves 0.4-1% less at D=128 and
with dropout, and since its chunks' coordinates are read anew after the tile loop
(``hopper._program_id_again``, session 46, NOTES v47) 3.0-3.5% less dense at D=64.

Dropout (session 28, NOTES v30): each consumer warp group draws a tile's 16-bit dropout
draws once (``hopper_dropout``: the Triton kernels' Philox bits, one call a thread per
eight keys, stored to shared memory as drawn) while the products of the tile before run,
and applies the forward's keep test to P^T (for dV) and to dP^T (for dS). The Triton
dQ and dK/dV kernels drew every mask twice and did seven products a tile pair: on an H100
(``benchmarks/sessions/s28_dropout_probe.py``) fwd+bwd with dropout 0.1 took 1.10-1.23x
less time than with them, e.g. at the paper's E.6 shape (no padding) at N=4096 8.53 ms
against 10.31 (cuDNN: 7.14). The draws still cost: the same call without dropout takes
4.70 ms.

Key padding (session 27, NOTES v29): a column past its sequence's last real key walks
nothing (its dK and dV are zero), and each consumer warp group reads, once, which of its
64 keys are padding and zeroes their rows of P^T (two registers a thread), so that dS, dV,
dK and the dQ sum leave them out. The E.6 setup without dropout (H100, fp16, B=16, H=8,
N=16K, ``benchmarks/sessions/s27-call3.sh``) then runs fwd+bwd in 69.8 ms against cuDNN's
99.9 with the same mask.

dQ's sum runs in whatever order the programs' reductions land, so it is not bitwise
reproducible; with ``torch.use_deterministic_algorithms(True)`` :func:`usable` says no
and the two-kernel backward runs.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

from . import common, fastlaunch, hopper, hopper_backward, hopper_dropout
from ..layout import schedule
from .common import let_next_grid_launch, wait_for_prior_grid

AVAILABLE = hopper.AVAILABLE

#: Q/dO buffers, dQ buffers.
STAGES, DQ_BUFS = 2, 1
#: Key rows a consumer warp group takes, and warps of the kernel's own partition (consumer
#: warp group 0; the other consumers and the two workers are partitions of their own).
KEYS_PER_WG, NUM_WARPS = 64, 4
#: By head dim, the tiles in order of preference: (key rows per program (a consumer warp
#: group per 64), query rows per step, register cap of the whole program); a layout takes
#: the first whose rows divide its block (:func:`tiles`). D=128: 10 warps (12 allocated)
#: at 168, the consumers get 240. D=64: 128 x 128 tiles at the same cap (one program an
#: SM, 195 KB of shared memory) measured 2-11% faster than 64 x 64 on dense, causal and
#: ``butterfly`` and even on ``local(3)`` and random+global (NOTES v24); 64 x 64 (6 warps
#: (8) at 128, two programs an SM, the consumer gets 232) serves layout blocks of 64.
TILES = {128: ((128, 64, 168),), 64: ((128, 128, 168), (64, 64, 128))}
#: The same where a call has dropout and its layout partial blocks. At D=64 the 128 x 128
#: tile's consumers spill 784 bytes there (ptxas of Triton 3.6; the draws and the partial
#: blocks' masks), 128 x 64's none, and 128 x 64 ran 14-18% faster on ``causal`` and
#: ``local(3) & causal`` (an H100 and an H200, NOTES v38), while with dropout and no
#: partial blocks it ran 0-5% slower and without dropout 10%.
TILES_PARTIAL_DROPOUT = {64: ((128, 64, 168), (64, 64, 128))}
#: dK and dV tiles wholly inside Nk of unsplit columns leave by TMA stores through free
#: shared buffers instead of the threads' pointer stores.
TMA_STORE = True
#: Rows and warps of the delta kernel's programs (8 warps: 69.5 against 71.7 us at
#: D=128, NOTES v36), and rows of dQ's cast's.
DELTA_ROWS, DELTA_WARPS, CAST_ROWS = 64, 8, 64
#: Whether the delta kernel and dQ's cast take the heads last to first. The fused kernel
#: takes its columns first head first, and an H100/H200 keeps the last ~50 MB touched in
#: L2: the delta kernel then ends on the first heads' dO and zeroed dQ sums, and the cast
#: starts on the sums the fused kernel added into last. On an H100, alternating with the
#: first-to-first order (and ``Tensor.copy_`` for the cast), sparse backwards at D=64
#: took 0.7-1.5% less time, at D=128 -0.5 to +1.1% (NOTES v37,
#: ``benchmarks/sessions/s35_passes_ab.py``): the fused kernel, bound by its products,
#: gains little from the L2 hits, the passes more.
PASSES_LAST_HEAD_FIRST = True
#: Where each consumer warp group draws a tile's dropout draws (``hopper_dropout``), as
#: codes: ``LATE`` all of them while the tile before runs its dQ and dK products (the
#: point of fewest live registers), ``SPLIT`` half there and half while the tile's own
#: S^T and dP^T run, ``EARLY`` all while its own S^T and dP^T run.
LATE, SPLIT, EARLY = 0, 1, 2
#: Whether the launches after the delta kernel (the fused kernel, dQ's cast, the split
#: columns' sums) start by programmatic dependent launch: each grid lets the next one
#: launch once all its programs have started, and the next one's programs wait on the
#: SMs for it to complete (``griddepcontrol``) instead of being launched after it. On an
#: H100 from CUDA graphs no layout measured slower, and the gain was below the machine's
#: 1-2% swing (NOTES v39, ``benchmarks/sessions/s37_pdl_ab.py``).
PDL = common.PDL_AVAILABLE
#: Whether a grid of equal columns fills its last wave: where :func:`fill_plan` finds it
#: worth it, the last (batch, kv head) groups' columns run as chunks after every whole
#: column, each chunk's dK and dV partial sums going to a workspace that
#: ``launch.backward`` adds up (``backward.sum_split_rows_kernel``, ``CHUNKED``).
FILL_LAST_WAVE = True
#: Whether each consumer warp group issues its dK product as soon as its own rows of dS
#: are in shared memory, before it waits at the dS exchange for the other warp group's
#: rows, so that the product runs during the wait (dK is then no longer in flight across
#: the back edge). On an H100, from CUDA graphs, the backward took 4.3% less time on dense
#: D=64, 2.1% on dense D=128, 3.8% and 0.8% on ``sparse_transformer_strided``, 1.3% on
#: D=64 ``local(3)``, dK and dV bit for bit the other order's (NOTES v40,
#: ``benchmarks/sessions/s38_dk_early_ab.py``); with dropout 0.1, 0.1-3.4% less
#: (NOTES v41, ``benchmarks/sessions/s39_dk_early_ab.py``). The 64 x 64 tiles, which
#: exchange nothing, keep the other order (:func:`dk_early`).
DK_EARLY = True
#: Whether the delta kernel stores ``sm_scale * rowsum(dO * O)``, so that a consumer's
#: ``dS^T = P^T * (dP^T - delta) * sm_scale`` takes one FFMA and one FMUL an element
#: (``P^T * (dP^T * sm_scale - delta')``) instead of an FADD and two FMULs: 64 of the
#: ~640 instructions a consumer warp issues a D=64 tile (ptxas of Triton 3.6). On an
#: H200 from CUDA graphs the backward took 1.9% less time on dense D=64, 0.6% on dense
#: D=128, 0.7-1.3% on ``sparse_transformer_strided`` and ``local(3)``, 0.8% with dropout;
#: at D=64 (a scale of 1/8) dK and dV bit for bit the other's (NOTES v43,
#: ``benchmarks/sessions/s42_delta_scaled_ab.py``).
DELTA_SCALED = True
#: With :data:`DELTA_SCALED` and dropout, whether dV's probabilities go into its product
#: without their 1 / (1 - p), applied once to dV's sum after the walk, and dS's keep test
#: is a select then an FFMA: an FMUL fewer an element in each. On an H200 from CUDA
#: graphs the backward with dropout 0.1 took 2.7% less time on dense D=128, 2.4% on
#: ``causal`` D=64, 1.5% on ``local(3)`` D=128, the same on dense D=64 (NOTES v43,
#: ``benchmarks/sessions/s42_drop_scale_late_ab.py``).
DROP_SCALE_LATE = True
#: Whether the two consumer warp groups meet at the dS exchange on a named hardware
#: barrier of their 256 threads (``bar.sync``, ``_consumers_meet``), as
#: FlashAttention-3's backward does, instead of the ``ds_full`` mbarriers: an arrive, a
#: try-wait loop and a partition barrier fewer a tile in each. On an H200 from CUDA
#: graphs the backward took 0.3% less time on dense D=64, 1.3% on dense D=128, 0.6% on
#: ``sparse_transformer_strided``, 0.8% on D=128 ``local(3)``, 1.6% with dropout, dK and
#: dV bit for bit (NOTES v43, ``benchmarks/sessions/s42_named_exchange_ab.py``).
NAMED_EXCHANGE = True
#: The named barrier they meet on. Gluon's partitions use 0-2 (Triton 3.6 to 3.9: the
#: whole CTA, and one a multi-warp partition); ``tests/test_hopper_compile.py`` checks
#: that nothing else takes this one.
EXCHANGE_BARRIER_ID = 8
#: Whether, in calls with dropout (:func:`named_dq`), each consumer warp group hands its
#: dQ tile to the dQ warp, and takes the buffer back, on named hardware barriers of the
#: 160 threads involved (the side that signals ``bar.arrive``, which does not wait; the
#: side that waits ``bar.sync``), as FlashAttention-3's backward does, instead of the
#: ``dq_ready`` and ``dq_empty`` mbarriers, whose arrive Gluon brackets with partition
#: barriers (``_dq_handoff``). On an H200 from CUDA graphs, with dropout 0.1 the backward
#: took 1.4-1.5% less time on dense D=64 and 2.8% on ``causal`` D=64, the same at D=128
#: (dense, ``local(3)``); without dropout 1.0-4.1% more (dense D=64 and D=128,
#: ``sparse_transformer_strided``, ``local(3)``), hence the rule (NOTES v44,
#: ``benchmarks/sessions/s43_named_dq_ab.py`` and ``s43_named_dq_dropout_ab.py``).
NAMED_DQ = True
#: The first of the named barriers the dQ hand-offs take: one ``ready`` a (warp group,
#: buffer), then one ``free`` each (9-12 for two warp groups with one buffer each, clear
#: of Gluon's 0-2 and of :data:`EXCHANGE_BARRIER_ID`; the hardware has 16).
DQ_BARRIER_BASE = 9


def dk_early(key_rows: int) -> bool:
    """The ``DK_EARLY`` constexpr a call binds on tiles of ``key_rows`` key rows:
    :data:`DK_EARLY` where two or more consumer warp groups exchange dS (``key_rows``
    over :data:`KEYS_PER_WG`)."""
    return DK_EARLY and key_rows > KEYS_PER_WG


def drop_scale_late() -> bool:
    """The ``DROP_SCALE_LATE`` constexpr a call binds: :data:`DROP_SCALE_LATE` where
    delta comes scaled (:data:`DELTA_SCALED`), whose dS formula it rewrites."""
    return DELTA_SCALED and DROP_SCALE_LATE


def named_dq(has_dropout: bool) -> bool:
    """Whether a call's fused kernel hands dQ over on named barriers: with dropout only
    (:data:`NAMED_DQ`)."""
    return NAMED_DQ and has_dropout


def draw_order(*places: int) -> int:
    """The ``DRAW_ORDER`` constexpr of the kernel: warp group ``wg``'s place (``LATE``,
    ``SPLIT`` or ``EARLY``) in bits ``2 wg`` and ``2 wg + 1``."""
    return sum(place << (2 * wg) for wg, place in enumerate(places))


#: By (head dim, whether the layout has partial blocks), each consumer warp group's draw
#: place (warp group 0's, then 1's). The warp groups meet at the dS exchange each tile, so
#: what a placement changes is mostly where the registers run short. On an H100 (NOTES
#: v30) SPLIT at both was 2-4% faster than LATE at D=64 and 6-7% slower at D=128; on an
#: H200 (NOTES v33, ``benchmarks/sessions/s31_draw_order_ab.py``) every other placement
#: was 2.5-7% slower at D=64, and at D=128 (EARLY, LATE) within 1% of (LATE, LATE), the
#: rest up to 5.5% slower. Since the tile loop takes K's and V's views per tile
#: (``_tile_views``, session 35), at D=64 LATE at both spills 288 bytes against SPLIT's
#: 492 (ptxas of Triton 3.6) and ran 7-9% faster than SPLIT on an H100 and an H200, and
#: with partial blocks (EARLY, LATE) 3% faster than (LATE, LATE); at D=128 every
#: placement ran within 1% (NOTES v38, ``benchmarks/sessions/s36_draw_order.py``).
DRAW_ORDER = {(64, False): draw_order(LATE, LATE), (64, True): draw_order(EARLY, LATE),
              (128, False): draw_order(LATE, LATE), (128, True): draw_order(LATE, LATE)}


@triton.jit
def _pass_rows(H, N, BLOCK_M: tl.constexpr, REVERSED: tl.constexpr):
    """-> (b, h, b * H + h, rows (BLOCK_M,), which rows are < N): the row tile of program
    (row tile, b * H + h) of a pass over (B, H, N) rows, the grid taken last to first
    with ``REVERSED``."""
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    if REVERSED:
        pid_m = tl.num_programs(0) - 1 - pid_m
        bh = tl.num_programs(1) - 1 - bh
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    return bh // H, bh % H, bh, offs_m, offs_m < N


@triton.jit
def delta_kernel(O, DO, DELTA, DQ_ACC, scale, stride_ob, stride_oh, stride_on, stride_dob,
                 stride_doh, stride_don, H, N, D: tl.constexpr, BLOCK_M: tl.constexpr,
                 REVERSED: tl.constexpr, PDL: tl.constexpr = False):
    """``DELTA = scale * rowsum(dO * O)`` (B, H, N) float32 (``scale``: the softmax scale
    with :data:`DELTA_SCALED`, else 1), and the rows of the float32 dQ accumulator DQ_ACC
    (B*H*N, D) zeroed, for program (row tile, b * H + h);
    ``REVERSED``: the programs take the heads and row tiles last to first
    (:data:`PASSES_LAST_HEAD_FIRST`). ``PDL``: the fused kernel may launch once every
    program has started (:data:`PDL`)."""
    let_next_grid_launch(PDL)
    b, h, bh, offs_m, m_ok = _pass_rows(H, N, BLOCK_M, REVERSED)
    offs_d = tl.arange(0, D)
    o = tl.load(O + b.to(tl.int64) * stride_ob + h * stride_oh
                + offs_m[:, None] * stride_on + offs_d[None, :], mask=m_ok[:, None], other=0.0)
    do = tl.load(DO + b.to(tl.int64) * stride_dob + h * stride_doh
                 + offs_m[:, None] * stride_don + offs_d[None, :], mask=m_ok[:, None],
                 other=0.0)
    rows = bh.to(tl.int64) * N + offs_m
    tl.store(DELTA + rows, tl.sum(o.to(tl.float32) * do.to(tl.float32), 1) * scale,
             mask=m_ok)
    tl.store(DQ_ACC + rows[:, None] * D + offs_d[None, :],
             tl.zeros([BLOCK_M, D], tl.float32), mask=m_ok[:, None])


@triton.jit
def dq_cast_kernel(DQ_ACC, DQ, stride_b, stride_h, stride_n, H, N, D: tl.constexpr,
                   BLOCK_M: tl.constexpr, REVERSED: tl.constexpr, PDL: tl.constexpr = False):
    """``DQ`` (B, H, N, D) 16-bit, strides as given (last dim contiguous) = the float32
    accumulator DQ_ACC (B*H*N, D) rounded to nearest even, for program (row tile,
    b * H + h); ``REVERSED`` as :func:`delta_kernel`'s. ``PDL``: launched by programmatic
    dependent launch after the fused kernel, whose sums it waits for."""
    wait_for_prior_grid(PDL)
    let_next_grid_launch(PDL)
    b, h, bh, offs_m, m_ok = _pass_rows(H, N, BLOCK_M, REVERSED)
    offs_d = tl.arange(0, D)
    rows = bh.to(tl.int64) * N + offs_m
    acc = tl.load(DQ_ACC + rows[:, None] * D + offs_d[None, :], mask=m_ok[:, None])
    tl.store(DQ + b.to(tl.int64) * stride_b + h * stride_h + offs_m[:, None] * stride_n
             + offs_d[None, :], acc.to(DQ.dtype.element_ty, fp_downcast_rounding="rtne"),
             mask=m_ok[:, None])


if AVAILABLE:
    gl = hopper.gl
    # The draw places as the kernels read them.
    _SPLIT, _EARLY = gl.constexpr(SPLIT), gl.constexpr(EARLY)
    gluon = hopper.gluon
    mbarrier, tma_load, tma_store = hopper.mbarrier, hopper.tma_load, hopper.tma_store
    warpgroup_mma, warpgroup_mma_wait = hopper.warpgroup_mma, hopper.warpgroup_mma_wait
    from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, tma,
                                                                  warpgroup_mma_init)
    _query_tile = hopper_backward._query_tile

    @gluon.jit
    def _column(SCHED, H, H_KV, N, NUM_KV_BLOCKS, SCHED_HEADS, GROUP, X, FILL_FROM, CHUNKS,
                LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                HAS_PARTIAL: gl.constexpr, FILL: gl.constexpr):
        """``hopper_backward._column``, and with ``FILL`` that of this program of the 1-D
        grid (``hopper.program_item``: column program, kv group, chunk, chunks): a chunk
        takes its stretch of the column (``hopper_backward._column_at``)."""
        p, g, chunk, chunks = hopper.program_item(X, FILL_FROM, CHUNKS, FILL)
        return hopper_backward._column_at(p, g, chunk, chunks, SCHED, H, H_KV, N,
                                          NUM_KV_BLOCKS, SCHED_HEADS, GROUP, LAYOUT_BLOCK,
                                          BLOCK_M, BLOCK_N, HAS_PARTIAL, FILL)

    @gluon.jit
    def _store_coords(SCHED, H_KV, NUM_KV_BLOCKS, SCHED_HEADS, X, FILL_FROM, CHUNKS,
                      LAYOUT_BLOCK: gl.constexpr, BLOCK_N: gl.constexpr, FILL: gl.constexpr):
        """-> (entry, batch, kv head, key block, first key row, workspace slot, workspace
        group) of this program, for its dK and dV: the slot is the schedule entry's (-1
        for a column one program takes whole) in the group of the grid's second axis, but
        for a chunk (``FILL``, ``hopper.program_item``), whose partial sums go to slot
        ``entry * CHUNKS + chunk`` of the workspace's group ``group - FILL_FROM``."""
        p, g, chunk, chunks = hopper.program_item(X, FILL_FROM, CHUNKS, FILL, FILL)
        entry, b, kv_h, kb, start_n = hopper._coords_at(p, g, SCHED, H_KV, NUM_KV_BLOCKS,
                                                        SCHED_HEADS, LAYOUT_BLOCK, BLOCK_N)
        slot, ws_group = hopper.fill_slot(entry, p, g, chunk, chunks, FILL_FROM,
                                          LAYOUT_BLOCK // BLOCK_N, FILL)
        return entry, b, kv_h, kb, start_n, slot, ws_group

    @gluon.jit
    def _wait_for_prior_grid(PDL: gl.constexpr):
        """``common.wait_for_prior_grid`` in Gluon."""
        if PDL:
            common.gdc_wait()

    @gluon.jit
    def _let_next_grid_launch(PDL: gl.constexpr):
        """``common.let_next_grid_launch`` in Gluon."""
        if PDL:
            common.gdc_launch_dependents()

    if hasattr(tma, "async_atomic_add"):
        tma_reduce_add = tma.async_atomic_add
    else:  # Triton 3.6: its builder has the reduction, its Gluon API not yet
        from triton._C.libtriton import ir as _ir
        from triton.experimental.gluon.language._core import builtin as _builtin

        @_builtin
        def tma_reduce_add(tensor_desc, coord, src, _semantic=None):
            coord = _semantic._convert_to_ir_values(coord, require_i64=False)
            _semantic.builder.create_async_tma_reduce(_ir.DESCRIPTOR_REDUCE_KIND.ADD,
                                                      tensor_desc.handle, coord, src.handle)

    @gluon.jit
    def _once_a_thread(ASM: gl.constexpr, value, WARPS: gl.constexpr):
        """Inline assembly ``ASM`` (not pure) run once by each thread of this partition's
        ``WARPS`` warps, with the int32 ``value`` as its operand ``$1``: one element a
        thread of a (32 * WARPS) tensor. The named barriers below are such."""
        one_each: gl.constexpr = gl.BlockedLayout([1], [32], [WARPS], [0])
        gl.inline_asm_elementwise(ASM, "=r,r", [gl.full([32 * WARPS], value, gl.int32,
                                                        one_each)],
                                  dtype=gl.int32, is_pure=False, pack=1)

    # The two consumer warp groups' meeting (NAMED_EXCHANGE).
    _MEET_ASM = gl.constexpr(f"bar.sync {EXCHANGE_BARRIER_ID}, 256; mov.u32 $0, $1;")

    @gluon.jit
    def _consumers_meet():
        """Both consumer warp groups' 256 threads wait at named barrier
        :data:`EXCHANGE_BARRIER_ID` until all have arrived (``bar.sync``, which also
        orders their shared-memory writes before the others' reads); each warp group
        runs it once a thread."""
        _once_a_thread(_MEET_ASM, 0, 4)

    # The dQ hand-offs (NAMED_DQ): a consumer warp group's 128 threads and the dQ warp's 32.
    _DQ_SYNC_ASM = gl.constexpr("bar.sync $1, 160; mov.u32 $0, $1;")
    _DQ_ARRIVE_ASM = gl.constexpr("bar.arrive $1, 160; mov.u32 $0, $1;")
    _DQ_BASE = gl.constexpr(DQ_BARRIER_BASE)

    @gluon.jit
    def _dq_handoff(barrier_id, ARRIVE: gl.constexpr, WARPS: gl.constexpr):
        """This partition's ``WARPS`` warps at named barrier ``barrier_id`` (an int32
        scalar) of a dQ hand-off (:data:`NAMED_DQ`): ``ARRIVE``, they signal it and go
        on (``bar.arrive``, which orders their prior shared-memory writes before the
        waiting side's reads); otherwise they wait there until the other side has arrived
        (``bar.sync``). Once a thread."""
        _once_a_thread(_DQ_ARRIVE_ASM if ARRIVE else _DQ_SYNC_ASM, barrier_id, WARPS)

    @gluon.jit
    def _rotation(start_n, n_col, BLOCK_M: gl.constexpr):
        """Where a program's walk through its column starts: at its own diagonal, so that
        the programs of a head (which start together) do not add into the same dQ rows at
        the same time. ``n_col`` is at least 1."""
        return (start_n // BLOCK_M) % n_col

    @gluon.jit
    def _tile_views(kv_smem, t, WG: gl.constexpr, KEYS: gl.constexpr, COLS: gl.constexpr):
        """This warp group's rows of K and V and its columns of K (for dQ), from ``kv_smem``
        (K, V), taken anew at the walk's step ``t`` by an index LLVM cannot prove zero:
        ``(t + program id) >> 31``. Taken once before the loop, as they were until session
        35, their sixteen 64-bit wgmma descriptors were computed there, and ptxas kept them
        in regular registers, moved them to uniform ones before each product and spilled
        around them; taken in the loop, they are rebuilt in uniform registers from one base
        (NOTES v37, Triton 3.6 for sm_90: spill bytes at D=128 with partial blocks 80 ->
        48, with dropout 312 -> 16, and on an H200 the D=128 backward with dropout 14-15%
        faster; even without)."""
        zero = (t + gl.program_id(0)) >> 31
        k = kv_smem.index(zero)
        v = kv_smem.index(zero + 1)
        return (k.slice(WG * KEYS, KEYS), v.slice(WG * KEYS, KEYS),
                k.slice(WG * COLS, COLS, dim=1))

    @gluon.jit
    def _column_tile(t, rot, n_col):
        """Which of its column's ``n_col`` tiles the walk's step ``t`` takes: the column
        from tile ``rot`` on, once for each head of the GQA group."""
        return (t % n_col + rot) % n_col

    @gluon.jit
    def _padded_walk(n_walk, kb, b, KV_LIMITS, stride_lim_b, HAS_PADDING: gl.constexpr):
        """The walk's length, 0 for a column past its sequence's last real key (key block
        ``kb`` at or past ``kv_end``, column 0 of ``Layout.padding_limits``): all its keys
        are padding, so its dK and dV are zero and it adds nothing into dQ."""
        if HAS_PADDING:
            n_walk = n_walk * (kb < gl.load(KV_LIMITS + b * stride_lim_b)).to(gl.int32)
        return n_walk

    @gluon.jit
    def _walk_row(FULL_IDX, PART_IDX, t, rot, n_col, n_full, full_start, part_start, q_row0,
                  N, LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr,
                  HAS_PARTIAL: gl.constexpr):
        """Row (in the (B*H*N, D) view) of the walk's tile ``t``: the column's tile
        ``(t + rot) % n_col`` of the group's head ``t // n_col``. Each partition derives it
        from the table itself rather than receive it."""
        q_start = _query_tile(FULL_IDX, PART_IDX, _column_tile(t, rot, n_col), n_full,
                              full_start, part_start, True, LAYOUT_BLOCK, BLOCK_M,
                              HAS_PARTIAL)
        return q_row0 + (t // n_col) * N + q_start

    @gluon.jit
    def _draw_tile(tile_draws, t, k0, k1, key_start, FULL_IDX, PART_IDX, rot, n_col, n_full,
                   full_start, part_start, q_row0, N, LAYOUT_BLOCK: gl.constexpr,
                   BLOCK_M: gl.constexpr, HAS_PARTIAL: gl.constexpr, PART: gl.constexpr = 0,
                   PARTS: gl.constexpr = 1):
        """The dropout draws of the walk's tile ``t`` (its query rows ``PART`` of ``PARTS``)
        for a consumer warp group's key rows into ``tile_draws`` (``hopper_dropout.draw``);
        the tile's row in the (B*H*N) view says whose scores they are (batch*head, first
        query)."""
        row = _walk_row(FULL_IDX, PART_IDX, t, rot, n_col, n_full, full_start, part_start,
                        q_row0, N, LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL)
        bh = row // N
        hopper_dropout.draw(tile_draws, k0, k1, bh, key_start, row - bh * N, PART, PARTS)

    @gluon.jit
    def _loader(q_desc, k_desc, v_desc, do_desc, lse_desc, delta_desc, k_smem, v_smem, q_smem,
                do_smem, lse_smem, delta_smem, kv_bar, ready, empty, FULL_IDX, PART_IDX, n_col,
                rot, n_full, n_walk, full_start, part_start, q_row0, k_row, N,
                LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, STAGES: gl.constexpr,
                HAS_PARTIAL: gl.constexpr, PDL: gl.constexpr):
        """One warp: K and V, then each tile's Q, dO, LSE and delta into the slot the
        consumers freed. With ``PDL`` the tiles' copies wait for the delta kernel (K and
        V, the forward's inputs, do not)."""
        mbarrier.expect(kv_bar, k_desc.block_type.nbytes + v_desc.block_type.nbytes)
        tma_load(k_desc, [k_row, 0], kv_bar, k_smem)
        tma_load(v_desc, [k_row, 0], kv_bar, v_smem)
        _wait_for_prior_grid(PDL)
        for t in range(n_walk):
            slot = t % STAGES
            # The table read first: its latency passes while the slot is still in use.
            row = _walk_row(FULL_IDX, PART_IDX, t, rot, n_col, n_full, full_start,
                            part_start, q_row0, N, LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL)
            # A barrier starts in phase 0: the first wait, on the other parity, passes.
            mbarrier.wait(empty.index(slot), ((t // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(slot),
                            q_desc.block_type.nbytes + do_desc.block_type.nbytes
                            + lse_desc.block_type.nbytes + delta_desc.block_type.nbytes)
            tma_load(q_desc, [row, 0], ready.index(slot), q_smem.index(slot))
            tma_load(do_desc, [row, 0], ready.index(slot), do_smem.index(slot))
            # LSE and delta by rows of BLOCK_M (every tile starts at a multiple of it).
            tma_load(lse_desc, [row // BLOCK_M, 0], ready.index(slot), lse_smem.index(slot))
            tma_load(delta_desc, [row // BLOCK_M, 0], ready.index(slot),
                     delta_smem.index(slot))

    @gluon.jit
    def _dq_adder(q_desc, dq_desc, dq_smem, dq_ready, dq_empty, FULL_IDX, PART_IDX, n_col, rot,
                  n_full, n_walk, full_start, part_start, q_row0, N,
                  LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, HAS_PARTIAL: gl.constexpr,
                  PDL: gl.constexpr, NAMED_DQ: gl.constexpr):
        """One warp: each tile's dQ added into the accumulator by TMA reductions, one per
        consumer warp group's columns (its buffers ``wg * BUFS`` on); each buffer goes
        back to its warp group once the reduction has read it (``NAMED_DQ``: both
        hand-offs on named barriers, :data:`NAMED_DQ`). With ``PDL`` the first
        waits for the delta kernel, which zeroes the accumulator."""
        _wait_for_prior_grid(PDL)
        # Constexprs from the descriptors' types.
        COLS: gl.constexpr = dq_desc.block_type.shape[1]
        NUM_WG: gl.constexpr = q_desc.block_type.shape[1] // COLS
        BUFS: gl.constexpr = dq_smem.shape[0] // NUM_WG
        for t in range(n_walk):
            buf = t % BUFS
            row = _walk_row(FULL_IDX, PART_IDX, t, rot, n_col, n_full, full_start,
                            part_start, q_row0, N, LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL)
            for wg in gl.static_range(NUM_WG):
                if NAMED_DQ:
                    _dq_handoff(_DQ_BASE + wg * BUFS + buf, False, 1)
                else:
                    mbarrier.wait(dq_ready.index(wg * BUFS + buf), (t // BUFS) & 1)
                tma_reduce_add(dq_desc, [row, wg * COLS], dq_smem.index(wg * BUFS + buf))
            for wg in gl.static_range(NUM_WG):
                # Reductions complete in order: the first warp group's buffer is free
                # while the second's is still being read.
                tma.store_wait(NUM_WG - 1 - wg)
                if NAMED_DQ:
                    # A named barrier has no phases: every arrival must meet a wait, and
                    # the warp group waits only before it reuses the buffer.
                    if t + BUFS < n_walk:
                        _dq_handoff(_DQ_BASE + (NUM_WG + wg) * BUFS + buf, True, 1)
                else:
                    mbarrier.arrive(dq_empty.index(wg * BUFS + buf), count=1)

    @gluon.jit
    def _consume(WG: gl.constexpr, kv_smem, q_smem, do_smem, lse_smem, delta_smem,
                 ds_smem, dq_smem, draws_smem, kv_bar, ready, empty, ds_full, dq_ready,
                 dq_empty, DK, DV, dk_desc, dv_desc, FULL_IDX, PART_IDX, PART_CODE, SCHED,
                 WS_DK, WS_DV, KPM, KV_LIMITS, SEED, qk_scale, sm_scale, keep_threshold,
                 drop_scale, H, H_KV, N, Nk, NUM_KV_BLOCKS, SCHED_HEADS, GROUP, X,
                 FILL_FROM, CHUNKS, WS_SLOTS, stride_kpm_b, stride_lim_b,
                 LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, STAGES: gl.constexpr,
                 HAS_PARTIAL: gl.constexpr, HAS_PADDING: gl.constexpr,
                 HAS_DROPOUT: gl.constexpr, TMA_STORE: gl.constexpr,
                 DRAW_ORDER: gl.constexpr, DK_EARLY: gl.constexpr,
                 DELTA_SCALED: gl.constexpr, DROP_SCALE_LATE: gl.constexpr,
                 NAMED_EXCHANGE: gl.constexpr, NAMED_DQ: gl.constexpr, FILL: gl.constexpr,
                 ANTICAUSAL: gl.constexpr):
        """Consumer warp group WG, a partition of its own: the five products of every tile
        for its 64 of the program's key rows, then their dK and dV (or a split column's
        partial sums) stored. dQ's tile needs every key row's dS: each warp group stores
        its rows of dS^T into the tile's buffer (two, alternating) and meets the other
        warp group (``NAMED_EXCHANGE``: on a named barrier; otherwise it arrives on
        ``ds_full`` and waits there), then computes its own columns of dQ from the whole
        buffer. ``DELTA_SCALED``: delta comes times the softmax scale
        (:data:`DELTA_SCALED`); ``DROP_SCALE_LATE``: dV's 1 / (1 - p) is applied to its
        sum after the walk (:data:`DROP_SCALE_LATE`); ``NAMED_DQ``: its dQ buffer goes to
        the dQ warp and comes back on named barriers (:data:`NAMED_DQ`). With
        ``DK_EARLY`` (:func:`dk_early`) its dK product is issued before that exchange
        and runs during the wait (:data:`DK_EARLY`); otherwise after dQ's, and on each
        back edge the last tile's dK is in flight. With ``TMA_STORE``, dK and dV leave by
        TMA stores through shared buffers the loop has finished with. With
        ``HAS_PADDING`` the rows of its padding keys (``KPM`` (B, Nk) int8, 1 = padding)
        get no probability, so their dK and dV are zero and they add nothing into dQ. With
        ``HAS_DROPOUT`` each tile's dropout draws are made once (``hopper_dropout``: the
        bits the forward dropped by, into ``draws_smem``, one (BLOCK_M, 64) uint16 buffer a
        warp group) and the forward's keep test applies to P^T, for dV, and to dP^T, for
        dS, drawn where ``DRAW_ORDER`` places this warp group's draws (:data:`DRAW_ORDER`)."""
        KEYS: gl.constexpr = 64  # KEYS_PER_WG
        BLOCK_N: gl.constexpr = kv_smem.shape[1]
        D: gl.constexpr = kv_smem.shape[2]
        NUM_WG: gl.constexpr = BLOCK_N // KEYS
        COLS: gl.constexpr = D // NUM_WG
        DS_BUFS: gl.constexpr = ds_smem.shape[0]
        DQ_BUFS: gl.constexpr = dq_smem.shape[0] // NUM_WG
        SUB: gl.constexpr = LAYOUT_BLOCK // BLOCK_M
        dtype: gl.constexpr = kv_smem.dtype
        st_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BLOCK_M, 16])
        kv_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, D, 16])
        dq_layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, COLS, 16])
        op_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=kv_layout,
                                                      k_width=2)

        (entry, b, kv_h, kb, start_n, full_start, part_start, n_full, n_col, n_walk,
         q_row0) = _column(SCHED, H, H_KV, N, NUM_KV_BLOCKS, SCHED_HEADS, GROUP, X, FILL_FROM,
                           CHUNKS, LAYOUT_BLOCK, BLOCK_M, BLOCK_N, HAS_PARTIAL, FILL)
        key_start = start_n + WG * KEYS
        n_walk = _padded_walk(n_walk, kb, b, KV_LIMITS, stride_lim_b, HAS_PADDING)
        if HAS_PADDING:
            # Which of this warp group's keys are real, as a column of the score tile's
            # layout: two registers a thread, read once for the whole walk.
            offs_key = key_start + gl.arange(0, KEYS, layout=gl.SliceLayout(1, st_layout))
            key_real = gl.expand_dims(
                gl.load(KPM + b.to(gl.int64) * stride_kpm_b + offs_key, mask=offs_key < Nk,
                        other=1) == 0, 1)
        # This warp group's rows of V, through which its dV leaves (the tile loop takes its
        # own views of K and V: _tile_views).
        v_rows = kv_smem.index(1).slice(WG * KEYS, KEYS)
        # Dropout's draws of a tile (hopper_dropout), at this warp group's place in
        # DRAW_ORDER: LATE during the last tile's dQ and dK, SPLIT half there and half
        # while the tile's own S^T and dP^T run, EARLY all while they run.
        PLACE: gl.constexpr = (DRAW_ORDER >> (2 * WG)) & 3
        DRAW_PARTS: gl.constexpr = 2 if PLACE == _SPLIT else 1
        if HAS_DROPOUT:
            seed_lo, seed_hi = hopper_dropout.seed_halves(SEED)
            tile_draws = draws_smem.index(WG)

        zero_st = gl.zeros([KEYS, BLOCK_M], gl.float32, st_layout)
        zero_dq = gl.zeros([BLOCK_M, COLS], gl.float32, dq_layout)
        dk = gl.zeros([KEYS, D], gl.float32, kv_layout)
        dv = gl.zeros([KEYS, D], gl.float32, kv_layout)
        # As in hopper_backward: dK an MMA accumulator only where the loop runs at least
        # once (else ptxas serialises every wgmma).
        if n_walk > 0:
            rot = _rotation(start_n, n_col, BLOCK_M)
            if HAS_DROPOUT and PLACE != _EARLY:
                _draw_tile(tile_draws, 0, seed_lo, seed_hi, key_start, FULL_IDX, PART_IDX,
                           rot, n_col, n_full, full_start, part_start, q_row0, N,
                           LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL, 0, DRAW_PARTS)
            mbarrier.wait(kv_bar, 0)
            dk = warpgroup_mma_init(dk)
            for t in range(n_walk):
                slot = t % STAGES
                j = _column_tile(t, rot, n_col)
                # v_rows_t: v_rows again, as the loop's own view.
                k_rows, v_rows_t, k_cols = _tile_views(kv_smem, t, WG, KEYS, COLS)
                mbarrier.wait(ready.index(slot), (t // STAGES) & 1)
                st = warpgroup_mma(k_rows, q_smem.index(slot).permute((1, 0)), zero_st,
                                   use_acc=False, is_async=True)
                dpt = warpgroup_mma(v_rows_t, do_smem.index(slot).permute((1, 0)), zero_st,
                                    use_acc=False, is_async=True)
                if HAS_DROPOUT and PLACE == _SPLIT:
                    # Half the tile's draws while S^T and dP^T run (the warp group waits
                    # for them anyway), the other half drawn during the last tile's dQ
                    # and dK products.
                    _draw_tile(tile_draws, t, seed_lo, seed_hi, key_start, FULL_IDX,
                               PART_IDX, rot, n_col, n_full, full_start, part_start, q_row0,
                               N, LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL, 1, 2)
                if HAS_DROPOUT and PLACE == _EARLY:
                    # All of them while S^T and dP^T run, into the buffer every thread of
                    # the warp group has read the last tile's draws from (the barrier).
                    hopper.sync_partition()
                    _draw_tile(tile_draws, t, seed_lo, seed_hi, key_start, FULL_IDX,
                               PART_IDX, rot, n_col, n_full, full_start, part_start, q_row0,
                               N, LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL, 0, 1)
                # In flight: the last tile's dK, then S^T and dP^T. Wait for all but dP^T:
                # this warp group's products of the last tile are done, so it releases
                # the slot (whose barrier counts one arrival from each warp group).
                st, dk = warpgroup_mma_wait(num_outstanding=1, deps=(st, dk))
                # The last tile's LSE and delta were read by plain loads: ordered before
                # the copies that will overwrite them. (Without this proxy fence the
                # backward measured no faster: NOTES v33.)
                fence_async_shared()
                mbarrier.arrive(empty.index((t + STAGES - 1) % STAGES), count=1, pred=t > 0)
                # LSE and delta as (1, BLOCK_M) rows of the score tile's layout, broadcast
                # down its keys, each read where it is needed: read before the products,
                # their 32 registers a thread made ptxas spill (NOTES v23).
                lse = lse_smem.index(slot).load(st_layout)
                pt = gl.exp2(st * qk_scale - lse)
                if HAS_PADDING:
                    pt = gl.where(key_real, pt, 0.0)
                if HAS_PARTIAL:
                    if j >= n_full:  # a partial block's tile
                        # Its first query row read here, not held from a tile ahead
                        # (registers).
                        listed = part_start + (j - n_full) // SUB
                        tile_start = gl.load(PART_IDX + listed) * LAYOUT_BLOCK \
                            + (j % SUB) * BLOCK_M
                        pt = hopper.partial_select(pt, 0.0, gl.load(PART_CODE + listed),
                                                   tile_start, key_start, Nk, BLOCK_M, KEYS,
                                                   st_layout, KEYS_FIRST=True,
                                                   ANTICAUSAL=ANTICAUSAL)
                if HAS_DROPOUT:
                    # dV takes the dropped probabilities, as the forward's O did (with
                    # DROP_SCALE_LATE their 1 / (1 - p) is applied to the sum after the walk).
                    kept = hopper_dropout.kept(tile_draws, keep_threshold, st_layout)
                    if DROP_SCALE_LATE:
                        p_kept = pt
                    else:
                        p_kept = pt * drop_scale
                    p_op = gl.convert_layout(gl.where(kept, p_kept, 0.0).to(dtype), op_layout)
                else:
                    p_op = gl.convert_layout(pt.to(dtype), op_layout)
                dv = warpgroup_mma(p_op, do_smem.index(slot), dv, is_async=True)
                dpt, p_op = warpgroup_mma_wait(num_outstanding=1, deps=(dpt, p_op))
                delta = delta_smem.index(slot).load(st_layout)
                if HAS_DROPOUT:
                    # Read again rather than held (registers).
                    kept = hopper_dropout.kept(tile_draws, keep_threshold, st_layout)
                if DELTA_SCALED:
                    # delta comes scaled by sm_scale (DELTA_SCALED): an FFMA an element.
                    if HAS_DROPOUT and DROP_SCALE_LATE:  # a select and an FFMA
                        dpt = gl.where(kept, dpt, 0.0) * (drop_scale * sm_scale) - delta
                    elif HAS_DROPOUT:
                        dpt = gl.where(kept, dpt * (drop_scale * sm_scale), 0.0) - delta
                    else:
                        dpt = dpt * sm_scale - delta
                    dst = pt * dpt
                else:
                    if HAS_DROPOUT:
                        dpt = gl.where(kept, dpt * drop_scale, 0.0)
                    dst = pt * (dpt - delta) * sm_scale
                # Buffer t % DS_BUFS was last read by tile t - DS_BUFS's dQ products, which
                # both warp groups completed before they met at the exchange of the tile
                # after it (this warp group waited there for the other), and by this warp
                # group's own dK product of that tile (completed by the waits above).
                ds = ds_smem.index(t % DS_BUFS)
                ds_rows = ds.slice(WG * KEYS, KEYS)
                ds_rows.store(dst.to(dtype))
                fence_async_shared()
                if DK_EARLY:
                    # Its own rows are all dK needs: issued before the exchange, it runs
                    # while this warp group waits there for the other's.
                    dk = warpgroup_mma(ds_rows, q_smem.index(slot), dk, is_async=True)
                if NUM_WG == 2 and NAMED_EXCHANGE:
                    _consumers_meet()
                elif NUM_WG > 1:
                    mbarrier.arrive(ds_full.index(t % DS_BUFS), count=1)
                    mbarrier.wait(ds_full.index(t % DS_BUFS), (t // DS_BUFS) & 1)
                dq = warpgroup_mma(ds.permute((1, 0)), k_cols, zero_dq, use_acc=False,
                                   is_async=True)
                if not DK_EARLY:
                    dk = warpgroup_mma(ds_rows, q_smem.index(slot), dk, is_async=True)
                if HAS_DROPOUT and PLACE != _EARLY:
                    # The next tile's draws while these products run, where the fewest
                    # registers are live (the score tiles are done), into the buffer every
                    # thread of the warp group has read this tile's from (the barrier).
                    if t + 1 < n_walk:
                        hopper.sync_partition()
                        _draw_tile(tile_draws, t + 1, seed_lo, seed_hi, key_start, FULL_IDX,
                                   PART_IDX, rot, n_col, n_full, full_start, part_start,
                                   q_row0, N, LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL, 0,
                                   DRAW_PARTS)
                if DK_EARLY:
                    # dQ was issued after dK: waiting for it waits for dK too (dK's
                    # registers are taken at the next tile's first wait, or after the loop).
                    dq, dv = warpgroup_mma_wait(num_outstanding=0, deps=(dq, dv))
                else:
                    dq, dv = warpgroup_mma_wait(num_outstanding=1, deps=(dq, dv))
                buf = WG * DQ_BUFS + t % DQ_BUFS
                if NAMED_DQ:
                    # The dQ warp has read the buffer's last tile (none before the first).
                    if t >= DQ_BUFS:
                        _dq_handoff(_DQ_BASE + NUM_WG * DQ_BUFS + buf, False, 4)
                else:
                    mbarrier.wait(dq_empty.index(buf), ((t // DQ_BUFS) & 1) ^ 1)
                dq_smem.index(buf).store(dq)
                fence_async_shared()
                if NAMED_DQ:
                    _dq_handoff(_DQ_BASE + buf, True, 4)
                else:
                    mbarrier.arrive(dq_ready.index(buf), count=1)
            dk, dv = warpgroup_mma_wait(num_outstanding=0, deps=(dk, dv))
        if HAS_DROPOUT and DROP_SCALE_LATE:
            dv = dv * drop_scale

        # The coordinates again rather than held across the loop (registers; NOTES v18).
        entry, b, kv_h, kb, start_n, slot, ws_group = _store_coords(
            SCHED, H_KV, NUM_KV_BLOCKS, SCHED_HEADS, X, FILL_FROM, CHUNKS, LAYOUT_BLOCK,
            BLOCK_N, FILL)
        key_start = start_n + WG * KEYS
        if TMA_STORE and (slot < 0) & (key_start + KEYS <= Nk):
            # Rows wholly inside Nk of an unsplit column leave by the copy engine, dV
            # through this warp group's rows of V (only its own products read them) and
            # dK through a Q/dO buffer: the one the last tile did not use, once both warp
            # groups have released it (warp group 0 takes its Q half, 1 its dO half).
            free = (n_walk + STAGES - 2) % STAGES
            if n_walk > 1:
                mbarrier.wait(empty.index(free), ((n_walk - 2) // STAGES) & 1)
            if n_walk == 0:
                mbarrier.wait(kv_bar, 0)  # V's copy lands before its buffer is reused
            dk_out = (q_smem if WG == 0 else do_smem).index(free).slice(0, KEYS)
            v_rows.store(dv.to(dtype))
            dk_out.store(dk.to(dtype))
            fence_async_shared()
            row = (b * H_KV + kv_h) * Nk + key_start
            tma_store(dk_desc, [row, 0], dk_out)
            tma_store(dv_desc, [row, 0], v_rows)
            tma.store_wait(0)
        else:
            # A split column's partial sums (float32, to the workspace) or a tile running
            # past Nk (a TMA store would write the next head's rows): pointer stores.
            hopper_backward.store_dkdv(dk, dv, DK, DV, WS_DK, WS_DV, slot, ws_group, b, kv_h,
                                       kb, key_start, H_KV, Nk, WS_SLOTS, LAYOUT_BLOCK, KEYS,
                                       D, kv_layout)

    # The threshold varies from call to call with dropout_p: a value of 1 must not become
    # a constant of the compiled kernel.
    @gluon.jit(do_not_specialize=["keep_threshold"])
    def hopper_fused_backward_kernel(
            DK, DV, FULL_IDX, PART_IDX, PART_CODE, SCHED, WS_DK, WS_DV, KPM, KV_LIMITS, SEED,
            q_desc, k_desc, v_desc, do_desc, dq_desc, lse_desc, delta_desc, dk_desc, dv_desc,
            qk_scale, sm_scale, keep_threshold, drop_scale, H, H_KV, N, Nk, NUM_KV_BLOCKS,
            SCHED_HEADS, GROUP, X, FILL_FROM, CHUNKS, WS_SLOTS, stride_kpm_b,
            stride_lim_b,
            LAYOUT_BLOCK: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
            D: gl.constexpr, STAGES: gl.constexpr, DQ_BUFS: gl.constexpr,
            HAS_PARTIAL: gl.constexpr, HAS_PADDING: gl.constexpr, HAS_DROPOUT: gl.constexpr,
            TMA_STORE: gl.constexpr, DRAW_ORDER: gl.constexpr, PDL: gl.constexpr,
            DK_EARLY: gl.constexpr, DELTA_SCALED: gl.constexpr,
            DROP_SCALE_LATE: gl.constexpr, NAMED_EXCHANGE: gl.constexpr,
            NAMED_DQ: gl.constexpr, FILL: gl.constexpr, ANTICAUSAL: gl.constexpr,
            num_warps: gl.constexpr):
        """Program (column schedule entry, key tile) x (batch, kv head repeat), as
        ``hopper_backward.hopper_dkdv_kernel`` (with ``FILL``, the same and then chunks of
        columns on a 1-D grid: ``hopper.program_item``; ``X``, ``FILL_FROM`` and ``CHUNKS`` its
        shape, :func:`bind`), whose arguments it shares but for LSE and
        DELTA, which come as descriptors over their (B*H*N // BLOCK_M, BLOCK_M) rows
        (``lse_desc``, ``delta_desc``, tiles of one row); dq_desc is a descriptor over the
        zeroed float32 (B*H*N, D) accumulator that receives ``sm_scale * dS K`` of every
        tile, in tiles of BLOCK_M rows and one consumer warp group's columns. With
        ``HAS_PADDING``, ``KPM`` (B, Nk) int8 (1 = padding key) and ``KV_LIMITS``
        (``Layout.padding_limits``, whose column 0 says which key blocks hold real keys)
        with their batch strides: a padding key's row of P^T is zero, and a column of
        padding walks nothing. With ``HAS_DROPOUT``, ``SEED`` ((1,) int64) is the forward's
        dropout seed, ``keep_threshold`` the 16-bit draw a kept score reaches and
        ``drop_scale`` 1 / (1 - p). ``ANTICAUSAL``: the layout may have anti-causal partial
        blocks (``hopper.partial_select``; False leaves their compare out of the code)."""
        dtype: gl.constexpr = q_desc.dtype
        _let_next_grid_launch(PDL)
        (entry, b, kv_h, kb, start_n, full_start, part_start, n_full, n_col, n_walk,
         q_row0) = _column(SCHED, H, H_KV, N, NUM_KV_BLOCKS, SCHED_HEADS, GROUP, X, FILL_FROM,
                           CHUNKS, LAYOUT_BLOCK, BLOCK_M, BLOCK_N, HAS_PARTIAL, FILL)
        n_walk = _padded_walk(n_walk, kb, b, KV_LIMITS, stride_lim_b, HAS_PADDING)
        k_row = (b * H_KV + kv_h) * Nk + start_n
        # Consumer warp groups (a partition of its own per 64 key rows) with a dQ buffer
        # each, and dS buffers: two where the warp groups exchange dS.
        NUM_WG: gl.constexpr = D // dq_desc.block_type.shape[1]
        DS_BUFS: gl.constexpr = 2 if NUM_WG > 1 else 1

        SWIZZLE: gl.constexpr = 128 if BLOCK_M * 2 >= 128 else BLOCK_M * 2
        ds_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=SWIZZLE,
                                                       element_bitwidth=16, rank=2)
        # K and V in one buffer of two (the consumers index it: _tile_views).
        kv_smem = gl.allocate_shared_memory(dtype, [2, BLOCK_N, D], k_desc.layout)
        k_smem, v_smem = kv_smem.index(0), kv_smem.index(1)
        q_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, D], q_desc.layout)
        do_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, D], do_desc.layout)
        lse_smem = gl.allocate_shared_memory(gl.float32, [STAGES, 1, BLOCK_M], lse_desc.layout)
        delta_smem = gl.allocate_shared_memory(gl.float32, [STAGES, 1, BLOCK_M],
                                               delta_desc.layout)
        ds_smem = gl.allocate_shared_memory(dtype, [DS_BUFS, BLOCK_N, BLOCK_M], ds_layout)
        dq_smem = gl.allocate_shared_memory(gl.float32, [NUM_WG * DQ_BUFS, BLOCK_M,
                                                         D // NUM_WG], dq_desc.layout)
        if HAS_DROPOUT:  # each consumer warp group's dropout draws of the tile
            draws_smem = gl.allocate_shared_memory(gl.uint16, [NUM_WG, BLOCK_M,
                                                              BLOCK_N // NUM_WG],
                                                  hopper_dropout.DRAWS_LAYOUT)
        else:
            draws_smem = ds_smem  # never read
        kv_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        # The exchange's mbarriers (with NAMED_EXCHANGE the consumers meet on a named barrier
        # and never touch them).
        ds_full = gl.allocate_shared_memory(gl.int64, [DS_BUFS, 1], mbarrier.MBarrierLayout())
        # The dQ hand-offs'. With NAMED_DQ they go on named barriers: one placeholder each
        # (the partitions' argument lists take them), never initialised nor touched.
        DQ_MBARS: gl.constexpr = 1 if NAMED_DQ else NUM_WG * DQ_BUFS
        dq_ready = gl.allocate_shared_memory(gl.int64, [DQ_MBARS, 1], mbarrier.MBarrierLayout())
        dq_empty = gl.allocate_shared_memory(gl.int64, [DQ_MBARS, 1], mbarrier.MBarrierLayout())
        mbarrier.init(kv_bar, count=1)
        for s in gl.static_range(STAGES):
            mbarrier.init(ready.index(s), count=1)
            mbarrier.init(empty.index(s), count=NUM_WG)  # one arrival a warp group
        for s in gl.static_range(DS_BUFS):
            mbarrier.init(ds_full.index(s), count=NUM_WG)
        if not NAMED_DQ:
            for s in gl.static_range(NUM_WG * DQ_BUFS):
                mbarrier.init(dq_ready.index(s), count=1)
                mbarrier.init(dq_empty.index(s), count=1)

        # Each partition takes what it reads. Every partition's arguments are written out in
        # each call: a tuple built beforehand (even of gl.constexpr-wrapped values) turns
        # their constexprs into run-time values (a literal, the warp group's number, stays
        # one). Until session 44 the loader's and the dQ warp's were such tuples (ptxas
        # folded most of what that left to run time: the machine code differed only for
        # layouts with partial blocks, NOTES v45).
        cols = gl.maximum(n_col, 1)
        rot = _rotation(start_n, cols, BLOCK_M)
        if NUM_WG == 1:
            gl.warp_specialize([
                (_consume, (0, kv_smem, q_smem, do_smem, lse_smem, delta_smem, ds_smem,
                            dq_smem, draws_smem, kv_bar, ready, empty, ds_full, dq_ready, dq_empty,
                            DK, DV, dk_desc, dv_desc, FULL_IDX, PART_IDX, PART_CODE, SCHED, WS_DK,
                            WS_DV, KPM, KV_LIMITS, SEED, qk_scale, sm_scale, keep_threshold,
                            drop_scale, H, H_KV, N, Nk, NUM_KV_BLOCKS, SCHED_HEADS, GROUP,
                            X, FILL_FROM, CHUNKS, WS_SLOTS, stride_kpm_b, stride_lim_b,
                            LAYOUT_BLOCK, BLOCK_M, STAGES, HAS_PARTIAL, HAS_PADDING,
                            HAS_DROPOUT, TMA_STORE, DRAW_ORDER, DK_EARLY, DELTA_SCALED,
                            DROP_SCALE_LATE, NAMED_EXCHANGE, NAMED_DQ, FILL, ANTICAUSAL)),
                (_loader, (q_desc, k_desc, v_desc, do_desc, lse_desc, delta_desc, k_smem,
                           v_smem, q_smem, do_smem, lse_smem, delta_smem, kv_bar, ready, empty,
                           FULL_IDX, PART_IDX, cols, rot, n_full, n_walk, full_start,
                           part_start, q_row0, k_row, N, LAYOUT_BLOCK, BLOCK_M, STAGES,
                           HAS_PARTIAL, PDL)),
                (_dq_adder, (q_desc, dq_desc, dq_smem, dq_ready, dq_empty, FULL_IDX, PART_IDX,
                             cols, rot, n_full, n_walk, full_start, part_start, q_row0, N,
                             LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL, PDL, NAMED_DQ)),
            ], [1, 1], [24, 24])
        else:
            gl.warp_specialize([
                (_consume, (0, kv_smem, q_smem, do_smem, lse_smem, delta_smem, ds_smem,
                            dq_smem, draws_smem, kv_bar, ready, empty, ds_full, dq_ready, dq_empty,
                            DK, DV, dk_desc, dv_desc, FULL_IDX, PART_IDX, PART_CODE, SCHED, WS_DK,
                            WS_DV, KPM, KV_LIMITS, SEED, qk_scale, sm_scale, keep_threshold,
                            drop_scale, H, H_KV, N, Nk, NUM_KV_BLOCKS, SCHED_HEADS, GROUP,
                            X, FILL_FROM, CHUNKS, WS_SLOTS, stride_kpm_b, stride_lim_b,
                            LAYOUT_BLOCK, BLOCK_M, STAGES, HAS_PARTIAL, HAS_PADDING,
                            HAS_DROPOUT, TMA_STORE, DRAW_ORDER, DK_EARLY, DELTA_SCALED,
                            DROP_SCALE_LATE, NAMED_EXCHANGE, NAMED_DQ, FILL, ANTICAUSAL)),
                (_consume, (1, kv_smem, q_smem, do_smem, lse_smem, delta_smem, ds_smem,
                            dq_smem, draws_smem, kv_bar, ready, empty, ds_full, dq_ready, dq_empty,
                            DK, DV, dk_desc, dv_desc, FULL_IDX, PART_IDX, PART_CODE, SCHED, WS_DK,
                            WS_DV, KPM, KV_LIMITS, SEED, qk_scale, sm_scale, keep_threshold,
                            drop_scale, H, H_KV, N, Nk, NUM_KV_BLOCKS, SCHED_HEADS, GROUP,
                            X, FILL_FROM, CHUNKS, WS_SLOTS, stride_kpm_b, stride_lim_b,
                            LAYOUT_BLOCK, BLOCK_M, STAGES, HAS_PARTIAL, HAS_PADDING,
                            HAS_DROPOUT, TMA_STORE, DRAW_ORDER, DK_EARLY, DELTA_SCALED,
                            DROP_SCALE_LATE, NAMED_EXCHANGE, NAMED_DQ, FILL, ANTICAUSAL)),
                (_loader, (q_desc, k_desc, v_desc, do_desc, lse_desc, delta_desc, k_smem,
                           v_smem, q_smem, do_smem, lse_smem, delta_smem, kv_bar, ready, empty,
                           FULL_IDX, PART_IDX, cols, rot, n_full, n_walk, full_start,
                           part_start, q_row0, k_row, N, LAYOUT_BLOCK, BLOCK_M, STAGES,
                           HAS_PARTIAL, PDL)),
                (_dq_adder, (q_desc, dq_desc, dq_smem, dq_ready, dq_empty, FULL_IDX, PART_IDX,
                             cols, rot, n_full, n_walk, full_start, part_start, q_row0, N,
                             LAYOUT_BLOCK, BLOCK_M, HAS_PARTIAL, PDL, NAMED_DQ)),
            ], [4, 1, 1], [240, 24, 24])


def choice() -> str:
    """``SPARSEFLASH_FUSED_BACKWARD`` (``auto``, ``0`` or ``1``; default ``auto``): whether
    :func:`usable` may take this kernel where ``SPARSEFLASH_GLUON`` allows Gluon."""
    value = os.environ.get("SPARSEFLASH_FUSED_BACKWARD", "auto")
    if value not in ("auto", "0", "1"):
        raise ValueError(f"SPARSEFLASH_FUSED_BACKWARD must be auto, 0 or 1, not {value!r}")
    return value


def usable(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, do: torch.Tensor,
           layout_block: int, dropout_p: float, has_padding: bool, scheduled: bool) -> bool:
    """Whether ``launch.backward`` runs this kernel (and the delta kernel) in place of the
    dQ and dK/dV kernels. Where ``hopper_backward.usable`` could run its dK/dV kernel (an
    sm_90 GPU, float16 or bfloat16, the column schedule, a query length that is a
    multiple of the layout block, contiguous inputs, Gluon not turned off), with or
    without key padding and dropout (which that kernel lacks: ``dropout_p`` does not
    decide here), at a head dim of :data:`TILES` with a layout block that one of
    its tiles divides (:func:`tiles`), and unless PyTorch is asked for deterministic
    algorithms (dQ's sum order varies). ``SPARSEFLASH_FUSED_BACKWARD``: ``auto`` (the default) and
    ``1`` wherever it can (since NOTES v23 it measured faster than the two kernels on every
    layout at both head dims, in whole calls too (NOTES v24); until then ``auto`` left D=64
    layouts without partial blocks or split columns to them); ``0`` never."""
    d = q.shape[-1]
    if (choice() == "0" or hopper.gluon_choice() == "0" or tiles(d, layout_block) is None
            or not scheduled or q.shape[2] % layout_block
            or torch.are_deterministic_algorithms_enabled()):
        return False
    # Key padding and dropout are this kernel's own (a mask on each program's key rows, the
    # draws made in each tile).
    return hopper.inputs_fit((q, k, v, do), layout_block, (), 0.0, False)


def tiles(head_dim: int, layout_block: int, partial_dropout: bool = False):
    """-> (key rows, query rows, register cap): the first of :data:`TILES` for
    ``head_dim`` (of :data:`TILES_PARTIAL_DROPOUT`, where it has the head dim, for a call
    with dropout on a layout with partial blocks) whose rows divide ``layout_block``; None
    where there is none."""
    table = TILES_PARTIAL_DROPOUT if partial_dropout and head_dim in TILES_PARTIAL_DROPOUT \
        else TILES
    for tile in table.get(head_dim, ()):
        if layout_block % tile[0] == 0 and layout_block % tile[1] == 0:
            return tile
    return None


def fill_plan(q: torch.Tensor, programs: int, kv_groups: int, layout_block: int,
              uniform_blocks: int, has_partial: bool, has_dropout: bool) -> tuple:
    """-> ``(fill_from, chunks)`` for :func:`bind`: ``schedule.fill_last_wave`` of the
    kernel's grid (``programs`` column schedule entries, each of ``uniform_blocks``
    blocks (``Layout.uniform_blocks``), for each of ``kv_groups`` groups) on q's GPU,
    whose SMs each run one program of the 128-key tiles; ``(kv_groups, 1)`` (no chunks)
    with :data:`FILL_LAST_WAVE` off, for columns of unequal length (``uniform_blocks``
    0) and for the 64-key tiles (two programs an SM, not modelled)."""
    block_n = tiles(q.shape[-1], layout_block, has_partial and has_dropout)[0]
    if not FILL_LAST_WAVE or uniform_blocks == 0 or block_n != 128:
        return kv_groups, 1
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    return schedule.fill_last_wave(kv_groups, programs * (layout_block // block_n),
                                   uniform_blocks * (layout_block // block_n), sms)


_DELTA = fastlaunch.Kernel(delta_kernel)
_CAST = fastlaunch.Kernel(dq_cast_kernel)
if AVAILABLE:
    _KERNEL = fastlaunch.Kernel(hopper_fused_backward_kernel)


def bind(q, k, o, do, programs, kv_groups, num_kv_blocks, sched_heads, q_slots, layout_block,
         has_partial, has_padding=False, stride_kpm_b=0, stride_lim_b=0,
         has_dropout=False, fill=None, anticausal=True) -> tuple:
    """-> (delta launch, fused launch, (key rows, query rows), cast launch, whether delta
    is scaled (:data:`DELTA_SCALED`)):
    :func:`delta_kernel`, :func:`hopper_fused_backward_kernel` and :func:`dq_cast_kernel`
    bound to these shapes, the fused kernel on ``programs``
    column schedule entries (as ``hopper_backward.bind_dkdv``) with the tiles of
    :func:`tiles`, ``fill`` (:func:`fill_plan`; None: no chunks) its groups from
    ``fill_from`` on as ``chunks`` chunks a column (their workspace slots then number
    ``programs * chunks`` a group, for ``kv_groups - fill_from`` groups, in place of
    ``q_slots``), and for key padding the batch strides of its mask and walk limits;
    ``anticausal`` False (no partial block of the layout is anti-causal) leaves that
    mask's compare out of its code;
    ``launch.backward`` checked :func:`usable` and keeps them for calls of the same
    shapes; :func:`backward` launches them."""
    B, H, N, D = q.shape
    H_kv, Nk = k.shape[1], k.shape[2]
    block_n, block_m, maxnreg = tiles(D, layout_block, bool(has_partial) and has_dropout)
    # The delta kernel follows whatever ran before the backward: launched as usual, it
    # only lets the fused kernel launch early; the fused kernel, the cast and the split
    # columns' sums (launch.backward) wait for the grid before them.
    pdl = common.pdl_launch(PDL)
    delta = _DELTA.bind((triton.cdiv(N, DELTA_ROWS), B * H), (),
                        (*o.stride()[:3], *do.stride()[:3], H, N), D=D, BLOCK_M=DELTA_ROWS,
                        REVERSED=PASSES_LAST_HEAD_FIRST, PDL=PDL, num_warps=DELTA_WARPS)
    cast = _CAST.bind((triton.cdiv(N, CAST_ROWS), B * H), (q.dtype,), (*q.stride()[:3], H, N),
                      D=D, BLOCK_M=CAST_ROWS, REVERSED=PASSES_LAST_HEAD_FIRST, **pdl)
    fill_from, chunks = fill if fill is not None else (kv_groups, 1)
    x = programs * (layout_block // block_n)  # column programs of a group
    if chunks > 1:  # a 1-D grid: the whole columns, then the chunks
        q_slots = programs * chunks
        grid = (schedule.filled_programs(kv_groups, x, (fill_from, chunks)),)
    else:
        grid = (x, kv_groups)
    fused = _KERNEL.bind(
        grid, (q.dtype,),
        (H, H_kv, N, Nk, num_kv_blocks, sched_heads, H // H_kv, x, fill_from, chunks,
         q_slots, stride_kpm_b, stride_lim_b),
        LAYOUT_BLOCK=layout_block, BLOCK_M=block_m, BLOCK_N=block_n, D=D, STAGES=STAGES,
        DQ_BUFS=DQ_BUFS, HAS_PARTIAL=has_partial, HAS_PADDING=has_padding,
        HAS_DROPOUT=has_dropout, TMA_STORE=TMA_STORE,
        DRAW_ORDER=DRAW_ORDER[D, bool(has_partial)], DK_EARLY=dk_early(block_n),
        DELTA_SCALED=DELTA_SCALED, DROP_SCALE_LATE=drop_scale_late(),
        NAMED_EXCHANGE=NAMED_EXCHANGE, NAMED_DQ=named_dq(has_dropout), FILL=chunks > 1,
        ANTICAUSAL=bool(has_partial and anticausal), num_warps=NUM_WARPS, maxnreg=maxnreg,
        **pdl)
    return delta, fused, (block_n, block_m), cast, DELTA_SCALED


def backward(bound, q, k, v, do, o, lse, delta, dq, dk, dv, col_idx, col_part_idx,
             col_part_code, col_sched, ws_dk, ws_dv, kpm, kv_limits, seed, qk_scale, sm_scale,
             keep_threshold=0, drop_scale=1.0):
    """The three launches of ``bound`` (:func:`bind`): delta (into ``delta`` (B, H, N)
    float32, times ``sm_scale`` where bound with :data:`DELTA_SCALED`; it also zeroes a
    float32 dQ accumulator), the fused kernel, and dQ's cast
    from the accumulator into ``dq``. Writes ``dq``, ``dk``, ``dv`` and the workspace of
    split columns.
    ``kpm`` (B, Nk) int8 and ``kv_limits`` are the key padding's mask and walk limits
    where ``bound`` was bound for padding, else any int32 tensors (never read); ``seed``
    likewise the (1,) int64 dropout seed, with ``keep_threshold`` and ``drop_scale``
    (1 / (1 - p)) where it was bound for dropout."""
    B, H, N, D = q.shape
    block_n, block_m = bound[2]
    dq_cols = D * KEYS_PER_WG // block_n  # a consumer warp group's columns of dQ
    dq_acc = torch.empty(B * H * N, D, dtype=torch.float32, device=q.device)
    # With DELTA_SCALED the consumers take delta times the softmax scale.
    bound[0]((o, do, delta, dq_acc), (sm_scale if bound[4] else 1.0,))
    descriptor = hopper.descriptor
    bound[1]((dk, dv, col_idx, col_part_idx, col_part_code, col_sched, ws_dk, ws_dv, kpm,
              kv_limits, seed),
             (descriptor(q, block_m), descriptor(k, block_n), descriptor(v, block_n),
              descriptor(do, block_m), descriptor(dq_acc, block_m, dq_cols),
              descriptor(lse.view(-1, block_m), 1), descriptor(delta.view(-1, block_m), 1),
              descriptor(dk, KEYS_PER_WG), descriptor(dv, KEYS_PER_WG), qk_scale, sm_scale,
              keep_threshold, drop_scale))
    bound[3]((dq_acc, dq), ())
