"""Session 54: does an L2 prefetch of the next program's first tiles shorten a short row's
start? ``hopper``'s own D=64 forward, each program prefetching into L2 (one
``cp.async.bulk.prefetch.L2``, by one thread) the Q tile, and in a second variant also the
first K and V tiles, of the program ``P`` later in launch order (``P`` = two programs an
SM, those resident at once): the one that will most likely take its place.

    PYTHONPATH=. python benchmarks/sessions/s54_prefetch_probe.py [--rounds 2]

Why. Call 1's stall samples (``s54_stall_sites.py``): a `local(1)` program waits ~1,500
cycles for its Q copy (8.7% of its warps' samples) after the schedule load that gives Q's
row, and ~370 more for its first K tile; call 2 (``s54_delay_probe.py``) found that 85-90%
of a cycle idled at a row's start or end is lost to the SM. Q is read once, from DRAM;
a prefetch one program's time ahead would make its copy an L2 hit.

A probe, not the kernel's form: the variant trees (copies of this tree's ``sparseflash``
under /tmp with ``hopper.py`` edited) take the table of absolute addresses (program ->
[Q, K, V] of the program P later; 0: none) through the ``WS_LSE`` pointer, unused by
layouts without split rows, and build it on the first call for each set of inputs. Only the
grid without ``FILL`` (equal rows filling the last wave) prefetches; the cases here run
without it (`local` rows are unequal at the edges; dense at 2,048 programs, see the log).

Prediction: `local(1)` 3-8% faster with Q, more with K/V; `local(3)` 2-4%; dense even.

Result (call 3, log ``benchmarks/results/NVIDIA-H200-prefetch-probe-s54-call3.log``; best of
two, against this tree): Q alone `local(1)` -0.1%, `local(3)` -0.7%, `butterfly` +0.8%,
dense +0.3%; Q, K and V `local(1)` +1.4%, `local(3)` -0.9%, `butterfly` +0.2%, dense
+0.9%; at B=4, N=4K `local(1)` -0.1% / +1.2%, `local(3)` -0.2% / -0.2%. Outputs bit for
bit the same. Refuted: Q's copy is not slow for want of L2 (NOTES v55).
"""

from benchmarks.sessions import ab

HELPERS = '''
    @gluon.jit
    def _l2_prefetch(address):
        """Session 54's probe: one thread prefetches the 16 KB from ``address`` (0: none)."""
        return gl.inline_asm_elementwise(
            "{ .reg .pred p; .reg .u32 t; mov.u32 t, %tid.x; setp.eq.u32 p, t, 0; "
            "setp.ne.and.u64 p, $1, 0, p; @p cp.async.bulk.prefetch.L2.global [$1], 16384; "
            "mov.u32 $0, 0; }",
            "=r,l", [address], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def hopper_forward_kernel('''

ITEM = ("        in_group, pid_g, b, r, chunk, chunks = _own_item(PROGRAMS_PER_GROUP, FILL_FROM, "
        "CHUNKS,\n                                                         REP, FILL)\n")
NEXT = ('''        if not FILL:
            next_tiles = WS_LSE.to(gl.pointer_type(gl.int64)) \\
                + (in_group + PROGRAMS_PER_GROUP * pid_g) * 3
            next_q = gl.load(next_tiles)
''' + "{kv_loads}")
KV_LOADS = '''            next_k = gl.load(next_tiles + 1)
            next_v = gl.load(next_tiles + 2)
'''
WAIT_Q = "        mbarrier.wait(q_bar, 0)\n"
PREFETCH = '''        if not FILL:
            _l2_prefetch(next_q)
''' + "{kv_prefetch}"
KV_PREFETCH = '''            _l2_prefetch(next_k)
            _l2_prefetch(next_v)
'''
FORWARD = "    tensors = (o, lse, full_idx, part_idx, part_code, sched, ws_o, ws_lse, kpm, kv_limits)\n"
TABLE = '''    if not bound.counter and bound.fill[1] == 1:
        ws_lse = _next_tiles(q, k, v, sched, full_idx).view(torch.float32)
''' + FORWARD

TABLE_FN = '''

_NEXT_TILES = {}


def _next_tiles(q, k, v, sched, full_idx):
    """Session 54's probe: (programs, 3) int64, the addresses of the Q tile and first K and
    V tiles of the program P later (broadcast layouts of block 128 without GQA, no FILL)."""
    key = (q.data_ptr(), k.data_ptr(), v.data_ptr(), sched.data_ptr(), q.shape)
    if key in _NEXT_TILES:
        return _NEXT_TILES[key]
    B, H, N, D = q.shape
    Nk = k.shape[2]
    X = sched.numel() // 6
    entries = sched.view(-1, 6)
    assert k.shape[1] == H and bool((entries[:, 5] < 0).all()) \
        and int(entries[:, 0].max()) < N // 128, "the probe's table takes none of these"
    total = X * H * B
    P = 2 * torch.cuda.get_device_properties(q.device).multi_processor_count
    nxt = torch.arange(total, device=q.device, dtype=torch.int64) + P
    live = nxt < total
    nxt = torch.where(live, nxt, 0)
    x, r, b = nxt % X, (nxt // X) % H, nxt // (X * H)
    entry = sched.view(-1, 6).long()[x]
    q_row = (b * H + r) * N + entry[:, 0] * 128
    has_keys = entry[:, 2] > entry[:, 1]
    key_block = full_idx.long()[torch.where(has_keys, entry[:, 1], 0)]
    k_row = (b * H + r) * Nk + key_block * 128
    row_bytes = D * q.element_size()
    table = torch.stack([q.data_ptr() + q_row * row_bytes,
                         torch.where(has_keys, k.data_ptr() + k_row * row_bytes, 0),
                         torch.where(has_keys, v.data_ptr() + k_row * row_bytes, 0)], 1)
    table = torch.where(live[:, None], table, 0).contiguous()
    _NEXT_TILES[key] = table
    return table
'''


def variant(name: str, kv: bool) -> str:
    """A copy of this tree's package whose own forward prefetches the next program's Q
    tile (and with ``kv`` its first K and V tiles) into L2."""
    def edit(text):
        head, body = text.split("\n    @gluon.jit\n    def hopper_forward_kernel(", 1)
        for piece in (ITEM, WAIT_Q, FORWARD):
            assert body.count(piece) >= 1, f"hopper.py moved: update the probe ({piece!r})"
        body = body.replace(ITEM, ITEM + NEXT.format(kv_loads=KV_LOADS if kv else ""), 1)
        body = body.replace(WAIT_Q, PREFETCH.format(kv_prefetch=KV_PREFETCH if kv else "")
                            + WAIT_Q, 1)
        body = body.replace(FORWARD, TABLE, 1)
        return head + HELPERS + body + TABLE_FN
    return ab.edited_tree(f"/tmp/s54-prefetch-{name}", edit)


def variants():
    return {"main": ab.kernels_of(None),
            "prefetch-q": ab.kernels_of(variant("q", False), "prefetch_q"),
            "prefetch-qkv": ab.kernels_of(variant("qkv", True), "prefetch_qkv")}


if __name__ == "__main__":
    # (Not random+global: its global rows are split, and the probe takes WS_LSE.)
    cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly", "dense")]
    ab.forward_ab_main(variants, {(1, 16, 16384): cases, (4, 16, 4096): cases[:2]})
