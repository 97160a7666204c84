"""Dropout's draws in the Gluon kernels, bit for bit the Triton kernels' own.

A forward and its backward may run on different kernels (the Triton forward, the Gluon
fused backward), so every kernel must drop the same scores. :func:`draw` makes
exactly the draws ``common.dropout_keep`` makes (Philox-4x32-10 keyed by the seed,
counters (key // 8, query, batch*head, 0), key ``8g + 2w + h`` reading 16-bit half ``h``
of word ``w``) and :func:`kept` applies the same test (kept when the draw reaches
``reference.keep_threshold(p)``), in the fused backward's score tiles (keys as rows) and
in the ping-pong forward's (queries as rows).

Where the draws are made matters more than how. In a wgmma accumulator's layout a thread
holds two keys of different groups of eight and two neighbouring queries per eight
columns, so drawing in place would run each Philox call for every score, eight times the
work (Philox's ten rounds are ~40 instructions a call even with each product's two words
from one 64-bit multiply). So each thread runs whole calls, one per (group of eight keys,
query), and stores the call's four words, which hold its eight draws in key order, with
one 16-byte store into a (query, key) buffer in shared memory; the warp group's threads
then read the draws they need in the wgmma layout and compare them with the threshold
where they select. On an H100 (benchmarks/NOTES.md, v30) the first form (products by
``umulhi`` and a multiply, the drawing thread making a byte per key: a compare, a select
and a byte store each) took 8-10% longer per dropout fwd+bwd at D=64 than this one, and
as long at D=128.

Gluon has no interpreter: ``tests/test_gpu.py`` checks the draws against the Triton
kernels' keep mask, and ``tests/test_hopper_compile.py`` compiles the kernel that uses
them.
"""

from __future__ import annotations

from .. import reference
from . import hopper
from .common import KEYS_PER_PHILOX as KEYS_PER_CALL  # keys that share one Philox call

AVAILABLE = hopper.AVAILABLE

if AVAILABLE:
    gl = hopper.gl
    gluon = hopper.gluon

    # Philox-4x32's multipliers and key increments (Salmon et al., 2011, "Parallel random
    # numbers: as easy as 1, 2, 3"), as Triton's tl.philox and the torch twin use them.
    PHILOX_ROUND_A = gl.constexpr(reference._PHILOX_ROUND_A)
    PHILOX_ROUND_B = gl.constexpr(reference._PHILOX_ROUND_B)
    PHILOX_KEY_A = gl.constexpr(reference._PHILOX_KEY_A)
    PHILOX_KEY_B = gl.constexpr(reference._PHILOX_KEY_B)
    PHILOX_ROUNDS = gl.constexpr(10)

    @gluon.jit
    def seed_halves(SEED):
        """The (1,) int64 seed at ``SEED`` as Philox's two 32-bit key words (low, high)."""
        seed = gl.load(SEED)
        return (seed & 0xFFFFFFFF).to(gl.uint32), ((seed >> 32) & 0xFFFFFFFF).to(gl.uint32)

    @gluon.jit
    def philox(k0, k1, c0, c1, c2, c3):
        """Philox-4x32-10 of uint32 counters ``c0..c3`` under the key (k0, k1): the four
        output words, as ``tl.philox`` computes them."""
        for _ in gl.static_range(PHILOX_ROUNDS):
            # Each product's high and low words from one 32 x 32 -> 64-bit multiply
            # (mul.wide), not a umulhi and a multiply.
            prod_b = c2.to(gl.uint64) * PHILOX_ROUND_B
            prod_a = c0.to(gl.uint64) * PHILOX_ROUND_A
            c0 = (prod_b >> 32).to(gl.uint32) ^ c1 ^ k0
            c2 = (prod_a >> 32).to(gl.uint32) ^ c3 ^ k1
            c1 = prod_b.to(gl.uint32)
            c3 = prod_a.to(gl.uint32)
            k0 = k0 + PHILOX_KEY_A
            k1 = k1 + PHILOX_KEY_B
        return c0, c1, c2, c3

    #: Shared layout of draw buffers (..., QUERIES, KEYS) uint16: a query's keys in a row,
    #: 16-byte chunks (a Philox call's eight draws) swizzled across eight rows, so that a
    #: wgmma layout's reads (four queries at a time) hit distinct banks.
    DRAWS_LAYOUT = gl.constexpr(gl.SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8,
                                                        order=[1, 0]))

    @gluon.jit
    def draw(draws_smem, k0, k1, bh, key_start, q_start, PART: gl.constexpr = 0,
                  PARTS: gl.constexpr = 1):
        """Draw the 16-bit dropout draws of key rows ``key_start + arange(KEYS)``
        (``key_start`` a multiple of 8) and query columns ``q_start + arange(QUERIES)`` of
        batch*head ``bh`` into ``draws_smem`` (QUERIES, KEYS) uint16, then wait at a barrier
        of the calling warp group (four warps), whose threads :func:`kept` then reads it.
        ``(k0, k1)`` are the seed's halves (:func:`seed_halves`). With ``PARTS`` > 1 only
        query rows ``PART`` of ``PARTS`` equal parts, so that a kernel can spread the draws
        of a tile over its products.

        A Philox call's four words hold the draws of its eight keys in key order (key
        8g + 2w + h is half h, low first, of word w), so with the keys contiguous in
        shared memory each call is one 16-byte store: the threshold test waits for the
        reader, which needs a compare to make its select anyway."""
        QUERIES: gl.constexpr = draws_smem.shape[0] // PARTS
        KEYS: gl.constexpr = draws_smem.shape[1]
        GROUPS: gl.constexpr = KEYS // KEYS_PER_CALL
        # (group, query): a call a thread, each warp the groups of 16 rows of the score
        # tile (its rows in the wgmma layout too), lanes along the queries.
        per_call: gl.constexpr = gl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])
        groups = key_start // KEYS_PER_CALL + gl.arange(0, GROUPS,
                                                        layout=gl.SliceLayout(1, per_call))
        queries = q_start + PART * QUERIES + gl.arange(0, QUERIES,
                                                      layout=gl.SliceLayout(0, per_call))
        zero = gl.zeros([GROUPS, QUERIES], gl.uint32, per_call)
        c0 = zero + gl.expand_dims(groups, 1).to(gl.uint32)
        c1 = zero + gl.expand_dims(queries, 0).to(gl.uint32)
        w0, w1, w2, w3 = philox(k0, k1, c0, c1, zero + bh.to(gl.uint32), zero)
        # join stacks on a new last axis: join(join(w0, w2), join(w1, w3)) flattens to
        # w0, w1, w2, w3, and each word's halves to low, high.
        words = gl.join(gl.join(w0, w2), gl.join(w1, w3))                 # (G, Q, 2, 2)
        draws = gl.join(words.to(gl.uint16), (words >> 16).to(gl.uint16))  # (G, Q, 2, 2, 2)
        draws = gl.permute(gl.reshape(draws, [GROUPS, QUERIES, KEYS_PER_CALL]), [1, 0, 2])
        draws_smem.slice(PART * QUERIES, QUERIES).store(gl.reshape(draws, [QUERIES, KEYS]))
        hopper.sync_partition()

    @gluon.jit
    def kept(draws_smem, threshold, layout: gl.constexpr, KEYS_FIRST: gl.constexpr = True):
        """bool (KEYS, QUERIES) in ``layout`` (the fused backward's score tiles, keys as
        rows), or (QUERIES, KEYS) without ``KEYS_FIRST`` (the forward's): the draws
        :func:`draw` left in ``draws_smem`` that reach ``threshold``
        (``reference.keep_threshold``), i.e. the scores kept."""
        if KEYS_FIRST:
            draws = draws_smem.permute((1, 0)).load(layout)
        else:
            draws = draws_smem.load(layout)
        return draws >= threshold.to(gl.uint16)

    @gluon.jit
    def _keep_mask_kernel(OUT, SEED, bh, key_start, q_start, threshold,
                          QUERIES: gl.constexpr, KEYS: gl.constexpr,
                          KEYS_FIRST: gl.constexpr):
        """OUT (KEYS, QUERIES) int8 with ``KEYS_FIRST`` (the fused backward's score
        tiles), else (QUERIES, KEYS) (the ping-pong forward's): :func:`draw` then
        :func:`kept` in that score tile's wgmma layout, stored."""
        ROWS: gl.constexpr = KEYS if KEYS_FIRST else QUERIES
        COLS: gl.constexpr = QUERIES if KEYS_FIRST else KEYS
        layout: gl.constexpr = gl.NVMMADistributedLayout(
            version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, COLS, 16])
        draws = gl.allocate_shared_memory(gl.uint16, [QUERIES, KEYS], DRAWS_LAYOUT)
        k0, k1 = seed_halves(SEED)
        draw(draws, k0, k1, bh, key_start, q_start)
        keep = kept(draws, threshold, layout, KEYS_FIRST)
        rows = gl.arange(0, ROWS, layout=gl.SliceLayout(1, layout))
        cols = gl.arange(0, COLS, layout=gl.SliceLayout(0, layout))
        gl.store(OUT + gl.expand_dims(rows, 1) * COLS + gl.expand_dims(cols, 0),
                 keep.to(gl.int8))


def keep_mask(seed: int, dropout_p: float, bh: int, key_start: int, q_start: int,
              queries: int, device, keys: int = 64, keys_first: bool = True) -> "torch.Tensor":
    """Test hook: the keep mask that a Gluon kernel applies to keys ``key_start +
    arange(keys)`` and queries ``q_start + arange(queries)`` of batch*head ``bh``: bool
    (keys, queries) as a consumer warp group of the fused backward holds it (64 keys, 64
    or 128 queries), or with ``keys_first=False`` (queries, keys) as a warp group of the
    ping-pong forward does (64 queries, 128 keys)."""
    import torch

    shape = (keys, queries) if keys_first else (queries, keys)
    out = torch.empty(shape, dtype=torch.int8, device=device)
    seed_tensor = torch.tensor([seed], dtype=torch.int64, device=device)
    _keep_mask_kernel[(1,)](out, seed_tensor, bh, key_start, q_start,
                            reference.keep_threshold(dropout_p), QUERIES=queries, KEYS=keys,
                            KEYS_FIRST=keys_first, num_warps=4)
    return out.bool()
