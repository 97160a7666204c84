"""The kernel tables against `.mask` / `.full`, sizes, devices, construction from a block
mask or an existing Layout, and the compile cache."""

import pytest
import torch

from sparseflash import Layout, LayoutError, compile_layout, parse
from sparseflash.layout import CODE_ANTICAUSAL, CODE_BOUNDS, CODE_CAUSAL
from sparseflash.layout.layout import PARTIAL_ANTICAUSAL

from layout_brute import one_torch_thread  # noqa: F401  (autouse fixture)

CASES = [
    # (pattern, seq_len, kv_seq_len, block, num_heads)
    ("local(2) | global(1) | butterfly", 1000, None, 64, None),
    ("local(1) & causal", 300, None, 32, None),
    ("local(1) - causal", 300, 250, 32, None),
    ("~causal | global(1)", 130, 70, 16, None),
    ("causal", 17, 17, 16, None),
    ("dense", 100, 33, 16, None),
    ("none", 100, 100, 16, None),
    ("random(3, seed=1)", 500, 700, 32, None),
    ("per_head(local(1), strided(3) & causal, none)", 200, 150, 16, 4),
    ("per_head(dense, causal)", 64, 64, 16, 2),
]
IDS = [f"{c[0]}-{c[1]}x{c[2]}x{c[3]}-h{c[4]}" for c in CASES]


@pytest.fixture(params=CASES, ids=IDS)
def layout(request):
    pattern, seq_len, kv_seq_len, block, heads = request.param
    return compile_layout(pattern, seq_len, block=block, kv_seq_len=kv_seq_len, num_heads=heads)


def _rows_of(mask):
    """bool (H, R, C) -> list over (h, r) of ascending column index lists."""
    return [[torch.nonzero(mask[h, r]).flatten().tolist() for r in range(mask.shape[1])]
            for h in range(mask.shape[0])]


def _check_padded(num, idx, mask):
    """num (H, R) int32 and idx (H, R, width) int32 against bool mask (H, R, C)."""
    H, R, _ = mask.shape
    assert num.dtype == torch.int32 and idx.dtype == torch.int32
    assert num.shape == (H, R)
    assert torch.equal(num.long(), mask.sum(-1))
    width = int(mask.sum(-1).max()) if mask.numel() else 0
    assert idx.shape == (H, R, width)
    rows = _rows_of(mask)
    for h in range(H):
        for r in range(R):
            n = len(rows[h][r])
            assert idx[h, r, :n].tolist() == rows[h][r]
            assert (idx[h, r, n:] == 0).all(), "padding past the count must be 0"


def test_mask_full_basics(layout):
    H, nq, nk = layout.shape
    assert nq == -(-layout.seq_len // layout.block)
    assert nk == -(-layout.kv_seq_len // layout.block)
    for t in (layout.mask, layout.full):
        assert t.dtype == torch.bool and t.shape == (H, nq, nk)
    assert not (layout.full & ~layout.mask).any(), "full blocks must be on"
    assert layout.nnz == int(layout.mask.sum())
    assert layout.density == pytest.approx(layout.nnz / (H * nq * nk))
    assert 0.0 <= layout.density <= 1.0


def test_kv_tables(layout):
    mask, full = layout.mask, layout.full
    _check_padded(layout.kv_num_blocks, layout.kv_indices, mask)
    _check_padded(layout.full_kv_num_blocks, layout.full_kv_indices, full)
    _check_padded(layout.partial_kv_num_blocks, layout.partial_kv_indices, mask & ~full)


def test_q_tables(layout):
    mask, full = [m.transpose(1, 2) for m in (layout.mask, layout.full)]
    _check_padded(layout.q_num_blocks, layout.q_indices, mask)
    _check_padded(layout.full_q_num_blocks, layout.full_q_indices, full)
    _check_padded(layout.partial_q_num_blocks, layout.partial_q_indices, mask & ~full)


def _check_csr(offsets, flat, mask, codes=None, block_codes=None):
    H, R, _ = mask.shape
    assert offsets.dtype == torch.int32 and flat.dtype == torch.int32
    assert offsets.shape == (H * R + 1,)
    assert offsets[0] == 0 and offsets[-1] == flat.numel()
    counts = mask.sum(-1).flatten()
    assert torch.equal(offsets[1:].long() - offsets[:-1].long(), counts)
    rows = _rows_of(mask)
    for h in range(H):
        for r in range(R):
            lo, hi = int(offsets[h * R + r]), int(offsets[h * R + r + 1])
            assert flat[lo:hi].tolist() == rows[h][r]
            if codes is not None:
                expected = [int(block_codes[h, r, c]) for c in rows[h][r]]
                assert codes[lo:hi].tolist() == expected


def test_kernel_tables_csr(layout):
    tables = layout.kernel_tables()
    assert len(tables) == 16
    (f_kv_off, f_kv_flat, p_kv_off, p_kv_flat, p_kv_codes,
     f_q_off, f_q_flat, p_q_off, p_q_flat, p_q_codes) = tables[:10]
    # The schedules (tests/test_layout_schedule.py) give every row and column a program
    # and walk each listed block once.
    for sched, f_off, p_off in ((tables[10], f_kv_off, p_kv_off),
                                (tables[13], f_q_off, p_q_off)):
        e = sched.long()
        assert set(e[:, 0].tolist()) == set(range(len(f_off) - 1))
        walked = (e[:, 2] - e[:, 1]).sum() + (e[:, 4] - e[:, 3]).sum()
        assert walked == f_off[-1] + p_off[-1]
    mask, full = layout.mask, layout.full
    partial = mask & ~full
    codes = layout.block_codes()
    assert p_kv_codes.dtype == torch.int32 and p_q_codes.dtype == torch.int32
    assert p_kv_codes.shape == p_kv_flat.shape and p_q_codes.shape == p_q_flat.shape
    _check_csr(f_kv_off, f_kv_flat, full)
    _check_csr(p_kv_off, p_kv_flat, partial, p_kv_codes, codes)
    t = lambda m: m.transpose(1, 2)  # noqa: E731
    _check_csr(f_q_off, f_q_flat, t(full))
    _check_csr(p_q_off, p_q_flat, t(partial), p_q_codes, t(codes))
    # Each table is built once.
    assert all(a is b for a, b in zip(tables, layout.kernel_tables()))


def test_block_codes(layout):
    codes = layout.block_codes()
    assert codes.dtype == torch.int8 and codes.shape == layout.shape
    assert torch.equal(codes == -1, ~layout.mask)
    assert torch.equal(codes == 3, layout.full)
    partial = layout.mask & ~layout.full
    assert set(codes[partial].tolist()) <= {CODE_BOUNDS, CODE_CAUSAL, CODE_ANTICAUSAL}


def test_codes_match_token_mask(layout):
    """Each partial code names the element mask the kernel applies; recompute the token
    mask from mask/full/codes independently of to_dense()."""
    H, nq, nk = layout.shape
    b, N, K = layout.block, layout.seq_len, layout.kv_seq_len
    codes = layout.block_codes()
    dense = layout.to_dense()
    for h in range(H):
        for i in range(nq):
            for j in range(nk):
                cell = dense[h, i * b:(i + 1) * b, j * b:(j + 1) * b]
                q = torch.arange(i * b, min((i + 1) * b, N))[:, None]
                k = torch.arange(j * b, min((j + 1) * b, K))[None, :]
                c = int(codes[h, i, j])
                expected = {-1: torch.zeros_like(q >= k), 3: torch.ones_like(q >= k),
                            CODE_BOUNDS: torch.ones_like(q >= k), CODE_CAUSAL: q >= k,
                            CODE_ANTICAUSAL: q < k}[c]
                assert torch.equal(cell, expected), (h, i, j, c)
                if c != -1:
                    assert cell.any(), f"block {(h, i, j)} is on but has no on token"


def test_empty_layout_tables():
    layout = compile_layout("none", 100, block=16)
    assert layout.nnz == 0 and layout.density == 0.0
    assert layout.kv_indices.shape == (1, 7, 0)
    assert layout.q_indices.shape == (1, 7, 0)
    assert layout.partial_kv_indices.shape == (1, 7, 0)
    assert layout.kv_num_blocks.tolist() == [[0] * 7]
    off = layout.kernel_tables()[0]
    assert off.tolist() == [0] * 8


def test_no_partial_blocks_tables():
    layout = compile_layout("local(1)", 128, block=16)
    assert layout.partial_kv_num_blocks.sum() == 0
    assert layout.partial_kv_indices.shape == (1, 8, 0)
    assert layout.full_kv_indices.shape == (1, 8, 3)


def test_unknown_attribute_raises_attribute_error():
    layout = compile_layout("local(1)", 128, block=16)
    with pytest.raises(AttributeError):
        layout.kv_indexes  # noqa: B018
    assert not hasattr(layout, "partial_kv_whatever")


# -- devices ------------------------------------------------------------------------------------
def test_to_same_device_is_identity():
    layout = compile_layout("local(1)", 256, block=16)
    assert layout.to("cpu") is layout
    assert layout.to(torch.device("cpu")) is layout
    assert layout.to("cpu:0") is layout  # the index does not make it another device


def test_to_caches_its_copies():
    # attention() calls to(q.device) on every call: the tables must move once, not per call.
    layout = compile_layout("local(1)", 256, block=16)
    meta = layout.to("meta")
    assert layout.to("meta") is meta
    assert meta.kernel_tables() is meta.kernel_tables()


def test_to_other_device_moves_tables():
    layout = compile_layout("local(1) & causal", 256, block=16)
    meta = layout.to("meta")
    assert meta is not layout and meta.device == torch.device("meta")
    assert meta.nnz == layout.nnz and meta.shape == layout.shape
    for t in meta.kernel_tables() + (meta.kv_num_blocks, meta.kv_indices, meta.q_indices,
                                       meta.full_kv_indices, meta.partial_q_num_blocks,
                                       meta.mask, meta.full):
        assert t.device.type == "meta"
    back = meta.to("cpu")
    assert torch.equal(back.mask, layout.mask)
    assert all(torch.equal(a, b) for a, b in zip(back.kernel_tables(), layout.kernel_tables()))


def test_compile_with_device():
    layout = compile_layout("local(1)", 256, block=16, device="meta")
    assert layout.device == torch.device("meta")
    assert layout.kv_indices.device.type == "meta"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_to_cuda():
    layout = compile_layout("local(1) & causal", 256, block=16)
    gpu = layout.to("cuda")
    assert all(t.is_cuda for t in gpu.kernel_tables())
    assert torch.equal(gpu.mask.cpu(), layout.mask)
    # "cuda" and "cuda:<current>" are the same place: no second copy of the tables.
    assert gpu.to(torch.device("cuda", torch.cuda.current_device())) is gpu
    assert compile_layout("local(1)", 256, block=16, device="cuda").to(
        f"cuda:{torch.cuda.current_device()}").device == gpu.device


# -- from a bool block mask ---------------------------------------------------------------------
def test_from_block_mask():
    torch.manual_seed(0)
    mask = torch.rand(3, 7, 5) < 0.4
    layout = compile_layout(mask, 100, block=16, kv_seq_len=70)
    assert layout.shape == (3, 7, 5)
    assert torch.equal(layout.mask, mask)
    ragged = torch.zeros_like(mask)
    ragged[..., -1] = True  # 70 % 16 != 0: the last key block needs the bounds mask
    assert torch.equal(layout.full, mask & ~ragged)
    codes = layout.block_codes()
    assert (codes[mask & ragged] == CODE_BOUNDS).all()
    tokens = mask.repeat_interleave(16, 1).repeat_interleave(16, 2)[:, :100, :70]
    assert torch.equal(layout.to_dense(), tokens)
    _check_padded(layout.kv_num_blocks, layout.kv_indices, mask)


def test_from_block_mask_2d_and_exact_sizes():
    mask = torch.eye(4, dtype=torch.bool)
    layout = compile_layout(mask, 64, block=16)
    assert layout.shape == (1, 4, 4)
    assert torch.equal(layout.full[0], mask)


def test_from_block_mask_errors():
    with pytest.raises(LayoutError, match="bool"):
        compile_layout(torch.ones(1, 4, 4), 64, block=16)
    with pytest.raises(LayoutError, match=r"expected \(H or 1, 4, 4\)"):
        compile_layout(torch.ones(1, 4, 5, dtype=torch.bool), 64, block=16)
    with pytest.raises(LayoutError, match="heads"):
        compile_layout(torch.ones(3, 4, 4, dtype=torch.bool), 64, block=16, num_heads=2)
    compile_layout(torch.ones(1, 4, 4, dtype=torch.bool), 64, block=16, num_heads=2)
    compile_layout(torch.ones(2, 4, 4, dtype=torch.bool), 64, block=16, num_heads=2)


# -- a Layout passed back to compile_layout -----------------------------------------------------
def test_layout_passes_through():
    layout = compile_layout("local(1)", 1000, block=64)
    assert compile_layout(layout, 1000, block=64) is layout
    assert compile_layout(layout, 1000, block=64, kv_seq_len=1000, num_heads=8) is layout
    heads = compile_layout("per_head(local(1), dense)", 1000, block=64, num_heads=4)
    assert compile_layout(heads, 1000, block=64, num_heads=4) is heads


@pytest.mark.parametrize("kwargs", [
    dict(seq_len=999, block=64),
    dict(seq_len=1000, block=128),
    dict(seq_len=1000, block=64, kv_seq_len=900),
])
def test_layout_mismatched_shapes(kwargs):
    layout = compile_layout("local(1)", 1000, block=64)
    seq_len = kwargs.pop("seq_len")
    with pytest.raises(LayoutError, match="compile a new layout"):
        compile_layout(layout, seq_len, **kwargs)


def test_layout_mismatched_heads():
    heads = compile_layout("per_head(local(1), dense)", 1000, block=64, num_heads=4)
    with pytest.raises(LayoutError, match="4 heads"):
        compile_layout(heads, 1000, block=64, num_heads=2)


# -- caching ------------------------------------------------------------------------------------
def test_cache_returns_the_same_object():
    a = compile_layout("local(3) | global(2)", 4096, block=64)
    assert compile_layout("local(3) | global(2)", 4096, block=64) is a
    assert compile_layout(parse("local(3) | global(2)"), 4096, block=64) is a
    assert compile_layout("local(3) | global(2)", 4096, block=64, device="cpu") is a
    assert compile_layout("local(3) | global(2)", 4096, block=64, kv_seq_len=4096) is a


def test_cache_keys_on_shapes_and_heads():
    a = compile_layout("local(3)", 4096, block=64)
    assert compile_layout("local(3)", 4096, block=128) is not a
    assert compile_layout("local(3)", 4000, block=64) is not a
    assert compile_layout("local(3)", 4096, block=64, kv_seq_len=2048) is not a
    h2 = compile_layout("per_head(local(3), dense)", 4096, block=64, num_heads=2)
    h4 = compile_layout("per_head(local(3), dense)", 4096, block=64, num_heads=4)
    assert h2 is not h4 and h2.num_heads == 2 and h4.num_heads == 4


def test_layout_repr_and_str():
    layout = compile_layout("local(1) & causal", 64, block=16)
    text = str(layout)
    assert "density" in text
    lines = text.splitlines()
    assert lines[1:5] == ["▒···", "█▒··", "·█▒·", "··█▒"]
    assert "local(1) & causal" in repr(layout)
    assert isinstance(layout, Layout)


def test_mean_blocks_per_row_and_column():
    """The autotuner's row-length class reads these: on blocks per row (kv) / column (q),
    rounded down, per head."""
    dense = compile_layout("dense", 640, block=64)            # 10 x 10 blocks
    assert dense.mean_blocks("kv") == dense.mean_blocks("q") == 10
    causal = compile_layout("causal", 640, block=64)          # 55 on blocks
    assert causal.mean_blocks("kv") == causal.mean_blocks("q") == 5
    cross = compile_layout("dense", 256, kv_seq_len=640, block=64)     # 4 x 10
    assert cross.mean_blocks("kv") == 10 and cross.mean_blocks("q") == 4
    heads = compile_layout("per_head(local(0), dense)", 512, block=64, num_heads=2)
    assert heads.mean_blocks("kv") == (8 + 64) // 16


def _kernel_meta(layout):
    from sparseflash.kernels.launch import LayoutMeta
    return LayoutMeta.of(layout)


def _runs(full: torch.Tensor) -> bool:
    """Whether every line of ``full (lines, blocks)`` that has blocks has them consecutive."""
    return all(int(idx[-1] - idx[0]) == len(idx) - 1
               for idx in (torch.nonzero(line).flatten() for line in full.cpu()) if len(idx))


def test_columns_and_rows_are_runs_against_the_full_mask(layout):
    """True exactly when each column's (row's) full blocks, the ones the dK/dV kernel (the
    forward) may walk at computed offsets, are consecutive query (key) blocks."""
    columns = _runs(layout.full.transpose(1, 2).reshape(-1, layout.num_q_blocks))
    rows = _runs(layout.full.reshape(-1, layout.num_kv_blocks))
    assert layout.columns_are_runs() is columns
    assert layout.rows_are_runs() is rows
    meta = _kernel_meta(layout)
    assert (meta.column_runs, meta.row_runs) == (int(columns), int(rows))


def test_longest_stretch_against_the_schedules(layout):
    """The most full blocks one program walks: each schedule entry's stretch of the full
    list, counted one entry at a time; never more than a whole row's (column's) list."""
    for axis in ("kv", "q"):
        entries = layout._build(f"{axis}_schedule", cpu=True).tolist()
        longest = max((e[2] - e[1] for e in entries), default=0)
        assert layout.longest_stretch(axis) == longest
        offsets = layout._build(f"full_{axis}_offsets", cpu=True)
        assert longest <= max((offsets[1:] - offsets[:-1]).tolist(), default=0)
    assert _kernel_meta(layout).row_stretch == layout.longest_stretch("kv")


def test_has_partial_against_the_block_codes(layout):
    """The kernels leave their partial-block walks out when no block has an element mask,
    and the Gluon forward its anti-causal mask when no partial block is anti-causal."""
    codes = layout.block_codes()
    expected = 0
    if ((codes >= 0) & (codes != 3)).any():
        expected = PARTIAL_ANTICAUSAL if (codes == CODE_ANTICAUSAL).any() else 1
    assert _kernel_meta(layout).has_partial == expected


@pytest.mark.parametrize("pattern, N, expected", [
    ("~causal", 1024, PARTIAL_ANTICAUSAL), ("~causal", 1000, PARTIAL_ANTICAUSAL),
    ("local(1) & ~causal", 1024, PARTIAL_ANTICAUSAL), ("causal", 1000, 1), ("dense", 1000, 1),
    ("dense", 1024, 0)])
def test_has_partial_names_anticausal_layouts(pattern, N, expected):
    assert _kernel_meta(compile_layout(pattern, N, block=128)).has_partial == expected


@pytest.mark.parametrize("pattern, runs", [("dense", True), ("causal", True),
                                            ("local(3)", True), ("butterfly", False),
                                            ("local(1) | global(1) | random(2)", False)])
def test_columns_are_runs_of_the_benchmark_layouts(pattern, runs):
    layout = compile_layout(pattern, 4096, block=128)
    assert layout.columns_are_runs() is runs
    assert layout.rows_are_runs() is runs  # (these are all symmetric in that respect)
    # Only the causal diagonal needs an element mask at a length that fills every block.
    assert _kernel_meta(layout).has_partial == int(pattern == "causal")
    assert _kernel_meta(compile_layout(pattern, 4000, block=128)).has_partial == 1  # ragged end


def test_padding_limits_against_brute_force(layout):
    """Column 0 = key blocks up to the last real key; then per row, where the full and
    partial walks stop: the first listed block at or past that, as an index into the flat
    CSR lists; last, the first padding key (Nk if none). Trailing, leading, holes,
    all-padding and no-padding sequences."""
    tables = layout.kernel_tables()
    full_off, full_flat, part_off, part_flat = (t.long() for t in tables[:4])
    Nk, block = layout.kv_seq_len, layout.block
    g = torch.Generator().manual_seed(Nk)
    kpm = torch.stack([
        torch.arange(Nk) >= Nk // 3,              # trailing
        torch.arange(Nk) < Nk // 2,               # leading
        torch.rand(Nk, generator=g) < 0.5,        # holes
        torch.ones(Nk, dtype=torch.bool),         # all padding
        torch.zeros(Nk, dtype=torch.bool),        # none
    ])
    limits = layout.padding_limits(kpm)
    rows = layout.num_heads * layout.num_q_blocks
    assert limits.dtype == torch.int32 and limits.shape == (5, 2 + 2 * rows)
    assert limits[:, -1].tolist() == [Nk // 3, 0, int(torch.nonzero(kpm[2])[0]), 0, Nk]
    for b in range(5):
        real = torch.nonzero(~kpm[b]).flatten()
        kv_end = 0 if real.numel() == 0 else int(real[-1]) // block + 1
        assert limits[b, 0] == kv_end
        for r in range(rows):
            for j, (off, flat) in enumerate(((full_off, full_flat), (part_off, part_flat))):
                listed = flat[off[r]:off[r + 1]]
                expected = int(off[r]) + int((listed < kv_end).sum())
                assert limits[b, 1 + 2 * r + j] == expected, (b, r, j)


def test_schedule_fields_are_the_kernels():
    """The kernels read schedule entries by the field numbers in kernels.common; the
    schedule writes them by its own."""
    from sparseflash.kernels import common
    from sparseflash.layout import schedule
    kernels = [common.ENTRY_ROW, common.ENTRY_FULL_START, common.ENTRY_FULL_END,
               common.ENTRY_PARTIAL_START, common.ENTRY_PARTIAL_END, common.ENTRY_SLOT,
               common.ENTRY_FIELDS]
    assert [getattr(f, "value", f) for f in kernels] == [
        schedule.ROW, schedule.FULL_START, schedule.FULL_END, schedule.PARTIAL_START,
        schedule.PARTIAL_END, schedule.SLOT, schedule.FIELDS]
