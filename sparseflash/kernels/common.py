"""Pieces shared by the forward and backward kernels: the element mask of a tile and the
dropout keep-mask. Both must give bit-identical answers in every kernel, so they live here
once."""

import triton
import triton.language as tl

# Globals read inside @triton.jit functions must be tl.constexpr objects.
# Codes of partial blocks; the same numbers as sparseflash.layout.CODE_*.
CODE_BOUNDS = tl.constexpr(0)
CODE_CAUSAL = tl.constexpr(1)
CODE_ANTICAUSAL = tl.constexpr(2)

# Fields of a schedule entry (int32 each); the same numbers as sparseflash.layout.schedule.
ENTRY_ROW = tl.constexpr(0)
ENTRY_FULL_START = tl.constexpr(1)
ENTRY_FULL_END = tl.constexpr(2)
ENTRY_PARTIAL_START = tl.constexpr(3)
ENTRY_PARTIAL_END = tl.constexpr(4)
ENTRY_SLOT = tl.constexpr(5)
ENTRY_FIELDS = tl.constexpr(6)


@triton.jit
def tile_mask(offs_m, offs_n, code, b, Nk, KPM, stride_kpm_b,
              PARTIAL: tl.constexpr, HAS_PADDING: tl.constexpr,
              KEYS_FIRST: tl.constexpr = False):
    """bool (BLOCK_M, BLOCK_N): which scores of a tile count; (BLOCK_N, BLOCK_M) with
    ``KEYS_FIRST``, for the dK/dV kernel's transposed scores.

    Full blocks need only the key-padding mask (if any); partial blocks add the bounds
    ``k < Nk`` and their causal / anti-causal element mask.
    """
    if KEYS_FIRST:
        rows, cols = offs_n, offs_m
    else:
        rows, cols = offs_m, offs_n
    keep = tl.full((rows.shape[0], cols.shape[0]), 1, tl.int1)
    if PARTIAL:
        if KEYS_FIRST:
            causal = offs_m[None, :] >= offs_n[:, None]
            in_bounds = (offs_n < Nk)[:, None]
        else:
            causal = offs_m[:, None] >= offs_n[None, :]
            in_bounds = (offs_n < Nk)[None, :]
        by_code = ((code == CODE_BOUNDS) | ((code == CODE_CAUSAL) & causal)
                   | ((code == CODE_ANTICAUSAL) & (~causal)))
        keep = by_code & in_bounds
    if HAS_PADDING:
        real = tl.load(KPM + b * stride_kpm_b + offs_n, mask=offs_n < Nk, other=1) == 0
        if KEYS_FIRST:
            keep = keep & real[:, None]
        else:
            keep = keep & real[None, :]
    return keep


@triton.jit
def head_dim_mask(offs_d, D, EVEN_D: tl.constexpr):
    """bool (BLOCK_D,): the real head-dim columns. When the head dim fills the tile
    (``EVEN_D``) it is a constant, which the compiler folds out of every load and store
    mask that includes it."""
    if EVEN_D:
        return tl.full(offs_d.shape, 1, tl.int1)
    else:
        return offs_d < D


@triton.jit
def key_bound_mask(offs_n, Nk, PARTIAL: tl.constexpr):
    """bool (BLOCK_N,): the keys that exist (``< Nk``). Only a partial block can reach past
    the end (the ragged last key block is always partial), so for a full one it is a
    constant the compiler folds out of the K/V load masks."""
    if PARTIAL:
        return offs_n < Nk
    else:
        return tl.full(offs_n.shape, 1, tl.int1)


# Keys that share one Philox call: its four 32-bit words split into eight 16-bit halves.
KEYS_PER_PHILOX = tl.constexpr(8)


@triton.jit
def dropout_seed(SEED, HAS_DROPOUT: tl.constexpr):
    """The Philox seed for :func:`dropout_keep`, read on the device from ``SEED`` ((1,)
    int64) with dropout, else 0: a CUDA graph that captured the launch replays it with the
    seed its captured draw makes anew."""
    if HAS_DROPOUT:
        return tl.load(SEED)
    else:
        return 0


@triton.jit
def _philox_words(seed, bh, offs_m, key_groups):
    """The four uint32 output words (each (queries, groups)) of the Philox-4x32-10 calls
    :func:`dropout_keep` makes: keyed by ``seed``, counters (key group, query,
    batch*head, 0) for queries ``offs_m`` and groups ``key_groups`` (1-D, key // 8)."""
    shape: tl.constexpr = (offs_m.shape[0], key_groups.shape[0])
    c0 = tl.broadcast_to(key_groups[None, :], shape).to(tl.uint32)
    c1 = tl.broadcast_to(offs_m[:, None], shape).to(tl.uint32)
    c2 = tl.zeros_like(c0) + bh.to(tl.uint32)
    c3 = tl.zeros_like(c0)
    return tl.philox(seed, c0, c1, c2, c3)


@triton.jit
def dropout_keep(seed, bh, offs_m, start_n, BLOCK_N: tl.constexpr, keep_threshold):
    """bool (BLOCK_M, BLOCK_N) for keys ``start_n + arange(BLOCK_N)``, ``start_n`` a
    multiple of 8: True = kept.

    One Philox-4x32-10 call keyed by ``seed`` with counters (key // 8, query,
    batch*head, 0) serves eight keys: key ``8g + 2w + h`` reads half ``h`` (0 = low) of
    output word ``w`` as a 16-bit draw ``u``, kept when ``u >= keep_threshold``
    (``sparseflash.reference.keep_threshold(p)`` = ceil(p * 65536), so the keep rate is
    1 - p to within 2^-16). One call per score made the paper's E.6 forward 2.2x slower
    than this (benchmarks/NOTES.md, v6). ``sparseflash.reference.dropout_keep_mask``
    reproduces it bit for bit on any device.

    Tiles with a side under 32 take :func:`_keep_per_key` instead: on 16 x 16 tiles
    Triton 3.6 compiled the join and reshape below wrong inside all three attention
    kernels in some settings (every case at layout blocks 64 with dropout, and one at 16,
    wrong by whole units, the same on every run; the other cases, the interpreter and the
    bare keep-mask kernel right; benchmarks/NOTES.md, v32)."""
    if offs_m.shape[0] < 32 or BLOCK_N < 32:
        return _keep_per_key(seed, bh, offs_m, start_n, BLOCK_N, keep_threshold)
    GROUPS: tl.constexpr = BLOCK_N // KEYS_PER_PHILOX
    r0, r1, r2, r3 = _philox_words(seed, bh, offs_m,
                                   start_n // KEYS_PER_PHILOX + tl.arange(0, GROUPS))
    # Integer compares, no int-to-float conversion: the low half is tested after a mask,
    # the high half in place against the threshold shifted up (u_hi >= T <=> w >= T << 16;
    # T <= 65535 keeps the shift inside 32 bits).
    low_threshold = keep_threshold.to(tl.uint32)
    high_threshold = low_threshold << 16
    # join stacks on a new last axis, so join(join(r0, r2), join(r1, r3)) flattens to
    # r0, r1, r2, r3, and the halves join below to low, high of each word.
    # int8 rather than bool through join/reshape: byte-sized lanes are the well-trodden
    # path through the layout conversion the reshape may need.
    words = tl.join(tl.join(r0, r2), tl.join(r1, r3))                  # (M, G, 2, 2)
    keep = tl.join(((words & 0xFFFF) >= low_threshold).to(tl.int8),
                   (words >= high_threshold).to(tl.int8))              # (M, G, 2, 2, 2)
    return tl.reshape(keep, (offs_m.shape[0], BLOCK_N)) != 0


@triton.jit
def _keep_per_key(seed, bh, offs_m, start_n, BLOCK_N: tl.constexpr, keep_threshold):
    """:func:`dropout_keep`'s mask with no layout change: every score runs its key
    group's whole Philox call and picks its own half word, eight times the draws'
    arithmetic, which only the small tiles (layout blocks of 16) take."""
    offs_n = start_n + tl.arange(0, BLOCK_N)
    shape: tl.constexpr = (offs_m.shape[0], BLOCK_N)
    r0, r1, r2, r3 = _philox_words(seed, bh, offs_m, offs_n // KEYS_PER_PHILOX)
    word = tl.broadcast_to(((offs_n % KEYS_PER_PHILOX) // 2)[None, :], shape)
    draws = tl.where(word == 0, r0, tl.where(word == 1, r1, tl.where(word == 2, r2, r3)))
    high = tl.broadcast_to((offs_n % 2)[None, :], shape) == 1
    draws = tl.where(high, draws >> 16, draws & 0xFFFF)
    return draws >= keep_threshold.to(tl.uint32)


@triton.jit
def _keep_mask_kernel(OUT, seed, keep_threshold, bh, N, Nk,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    start_n = tl.program_id(1) * BLOCK_N
    offs_n = start_n + tl.arange(0, BLOCK_N)
    keep = dropout_keep(seed, bh, offs_m, start_n, BLOCK_N, keep_threshold)
    tl.store(OUT + offs_m[:, None] * Nk + offs_n[None, :], keep.to(tl.int8),
             mask=(offs_m < N)[:, None] & (offs_n < Nk)[None, :])


def keep_mask(seed: int, dropout_p: float, bh: int, N: int, Nk: int, device,
              tile: int = 16) -> "torch.Tensor":
    """Test hook: the keep-mask (N, Nk) bool the kernels use for batch*head index ``bh``,
    drawn on ``tile`` x ``tile`` tiles (under 32 :func:`dropout_keep` takes its per-key
    path)."""
    import torch

    from ..reference import keep_threshold
    out = torch.empty(N, Nk, dtype=torch.int8, device=device)
    grid = (triton.cdiv(N, tile), triton.cdiv(Nk, tile))
    _keep_mask_kernel[grid](out, seed, keep_threshold(dropout_p), bh, N, Nk,
                            BLOCK_M=tile, BLOCK_N=tile)
    return out.bool()


@triton.jit
def mma(a, b, PRECISION: tl.constexpr, acc=None):
    """``tl.dot`` (added to ``acc`` when given, in the MMA's own accumulator) with the
    precision chosen by the launcher. ``"upcast"`` is for bfloat16 under the Triton
    interpreter, whose dot misreads bfloat16 operands: it multiplies in float32 the same
    bfloat16 values a GPU would."""
    if PRECISION == "upcast":
        return tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
    else:
        return tl.dot(a, b, acc, input_precision=PRECISION)


@triton.jit
def walk_ends(entry, KV_LIMITS, b, stride_lim_b, HAS_PADDING: tl.constexpr):
    """Where a scheduled program's walks over its full and partial lists end.

    Without padding, at the schedule entry's ends. With it, also at the first listed block
    past the sequence's last real key: ``KV_LIMITS (B, 1 + 2 * rows)`` holds, per sequence
    and layout row, those cut points (``Layout.padding_limits``; rows list their blocks
    in ascending order, so everything after the cut is padding)."""
    full_end, part_end = tl.load(entry + ENTRY_FULL_END), tl.load(entry + ENTRY_PARTIAL_END)
    if HAS_PADDING:
        limits = KV_LIMITS + b * stride_lim_b + 1 + 2 * tl.load(entry + ENTRY_ROW)
        full_end = tl.minimum(full_end, tl.load(limits))
        part_end = tl.minimum(part_end, tl.load(limits + 1))
    return full_end, part_end


@triton.jit
def scheduled_program(SCHED, H, NUM_ROWS, LAYOUT_HEADS, TILES: tl.constexpr):
    """Where a scheduled program works. Programs are (schedule entry, tile within the
    layout block) on axis 0 and (batch, head repeat) on axis 1, the repeat running over
    the query heads that share one layout head (all H of them for a broadcast layout).

    Returns ``(entry pointer, layout block index, tile within it, b, h, axis-1 id)``.
    """
    pid = tl.program_id(0)
    pid_g = tl.program_id(1)
    entry = SCHED + (pid // TILES) * ENTRY_FIELDS
    row = tl.load(entry + ENTRY_ROW)
    rep = H // LAYOUT_HEADS
    b = pid_g // rep
    h = (row // NUM_ROWS) * rep + pid_g % rep
    return entry, row % NUM_ROWS, pid % TILES, b, h, pid_g


@triton.jit
def split_row(SPLIT_ROWS, u, CHUNKED: tl.constexpr):
    """The layout row of split row ``u`` of the chunks' merge and sum kernels:
    ``SPLIT_ROWS[u]``, or with ``CHUNKED`` (the rows or columns that fill a last wave, a
    layout's every schedule entry in chunks) the row of entry ``u`` of the schedule that
    ``SPLIT_ROWS`` then is."""
    if CHUNKED:
        return tl.load(SPLIT_ROWS + u * ENTRY_FIELDS + ENTRY_ROW)
    else:
        return tl.load(SPLIT_ROWS + u)


@triton.jit
def chunk_slot(SPLIT_SLOTS, u, c, MAX_CHUNKS, CHUNKED: tl.constexpr):
    """The workspace slot of chunk ``c`` of split row ``u``: read from ``SPLIT_SLOTS``,
    or with ``CHUNKED`` (:func:`split_row`) ``u * MAX_CHUNKS + c``, the chunks' slots in
    order."""
    if CHUNKED:
        return u * MAX_CHUNKS + c
    else:
        return tl.load(SPLIT_SLOTS + u * MAX_CHUNKS + c)


@triton.jit
def consecutive_run(IDX, start, end, LAYOUT_BLOCK: tl.constexpr,
                    KNOWN_RUN: tl.constexpr = False):
    """Element offset of the first block listed at ``IDX[start:end]`` when the listed blocks
    are consecutive (dense, banded and causal rows and columns), else -1 (also when the
    stretch is empty). Lists ascend, so they are consecutive when last - first = count - 1.
    ``KNOWN_RUN``: the layout's lists are all consecutive (``Layout.rows_are_runs``), so
    the test and its load are skipped (an empty stretch then gives 0, and no tiles).

    The kernels walk a consecutive run with each tile's offset computed instead of read:
    a table read inside the loop costs Triton's software pipeliner an asynchronous copy, a
    wait and a block-wide barrier per tile, and a buffer of pipeline depth (on an H200, a
    minimal forward's dense D=64 rate fell from 443 to 373 TFLOP/s, a minimal dK/dV's on
    transposed scores from 507 to 441: benchmarks/NOTES.md, v11 and v12; the dQ kernel's
    dense and causal times fell 6-13% with its run walk: v16)."""
    nonempty = end > start
    first = tl.load(IDX + start, mask=nonempty, other=0)
    if KNOWN_RUN:
        return first * LAYOUT_BLOCK
    last = tl.load(IDX + end - 1, mask=nonempty, other=-1)
    return tl.where(nonempty & (last - first == end - 1 - start), first * LAYOUT_BLOCK, -1)


@triton.jit
def listed_stretch(IDX, start, end, INDEX_REGS: tl.constexpr):
    """The block indices ``IDX[start:end]`` a program walks through the table, loaded once
    into a register vector ``(INDEX_REGS,)`` (zeros past ``end``) for :func:`block_at`;
    the launcher sets ``INDEX_REGS`` only where every program's stretch fits. With
    ``INDEX_REGS = 0`` nothing is loaded.

    Why: a table read inside the walk's loop is a load whose result the next tile's
    address needs, and Triton's software pipeliner (3.6 and 3.9) then waits for *every*
    copy in flight at the top of each iteration (``async_wait`` 0), so the K/V tiles of
    later iterations are not prefetched; picked from registers, the index is arithmetic
    on the loop counter and the loop pipelines like a walk at computed offsets. On an
    H200 the forward of ``butterfly`` became 4-6% faster. Only the forward uses it: the
    dQ kernel measured 3-6% slower with it at D=128, and the dK/dV kernel, pipelined so,
    gave wrong dK on the H200 with 32-row query tiles and a ragged last block
    (benchmarks/NOTES.md, v16)."""
    if INDEX_REGS > 0:
        lanes = tl.arange(0, INDEX_REGS)
        return tl.load(IDX + start + lanes, mask=lanes < end - start, other=0)
    else:
        return tl.zeros((1,), tl.int32)


@triton.jit
def block_at(IDX, listed, start, i, INDEX_REGS: tl.constexpr):
    """``IDX[i]`` for a walk over ``IDX[start:...]``: picked from the registers of
    :func:`listed_stretch` by a masked sum (a few shuffles within a warp: the vector is
    smaller than a warp's lanes, so each warp holds all of it), or read from the table
    when ``INDEX_REGS = 0``."""
    if INDEX_REGS > 0:
        lanes = tl.arange(0, INDEX_REGS)
        return tl.sum(tl.where(lanes == i - start, listed, 0), 0)
    else:
        return tl.load(IDX + i)


# Programmatic dependent launch (Hopper): a kernel launched with ``launch_pdl=True`` may
# start while the kernel before it in the stream finishes, and waits (``griddepcontrol.wait``)
# for that kernel's completion and memory before it touches what it wrote. The instructions
# exist from sm_90 on and in Triton 3.3 on; a launcher passes ``PDL=True`` only there.
try:
    from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait
    PDL_AVAILABLE = True
except ImportError:  # an older Triton: PDL stays off (nothing calls these)
    gdc_launch_dependents = gdc_wait = None
    PDL_AVAILABLE = False


def pdl_launch(on: bool) -> dict:
    """The constexpr ``PDL`` and, where ``on``, Triton's ``launch_pdl`` option: what a
    launcher passes to bind a kernel that waits or lets go by :func:`wait_for_prior_grid`
    and :func:`let_next_grid_launch`, launched by programmatic dependent launch."""
    return {"PDL": True, "launch_pdl": True} if on else {"PDL": False}


@triton.jit
def wait_for_prior_grid(PDL: tl.constexpr):
    """With ``PDL``: block until the grid launched before this one has completed and its
    writes are visible. Every global read of its outputs, and every global write, comes
    after (a write before it could land in memory the prior grid still reads)."""
    if PDL:
        gdc_wait()


@triton.jit
def let_next_grid_launch(PDL: tl.constexpr):
    """With ``PDL``: let the grid launched after this one (with ``launch_pdl``) start once
    every program of this grid has passed here, so that its programs take the SMs this
    grid's last wave leaves idle and wait there, instead of being launched after it."""
    if PDL:
        gdc_launch_dependents()
