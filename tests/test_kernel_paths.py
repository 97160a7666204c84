"""The kernels' alternative code paths, each against the float64 golden run.

The launchers choose between paths the default tests do not all reach on a CPU:

* the forward loads K and V through tensor descriptors (``USE_TMA``) on Hopper GPUs
  for long rows by default, and for every row with ``SPARSEFLASH_TMA=1``, also under
  the interpreter, which emulates them;
* a negative or zero ``scale`` is folded into q (the forward needs a positive one);
* a kernel's first launch per tuning key goes through Triton's autotuner, later ones
  straight to the kernel with the remembered tile (``fastlaunch.Kernel``);
* in the forward, a row whose full blocks are consecutive is walked with computed
  offsets, any other through the table (``common.consecutive_run``);
* the dK/dV kernel does the same for columns, on transposed scores and with unmasked
  loads, when every column of the layout is consecutive, D <= 64 and the inputs are
  16-bit (``COLUMN_RUNS``); the tiles of a ragged last query block go to the masked
  table walk;
* the forward's table walk takes its indices from registers (``INDEX_REGS``) where its
  stretch fits 16 or 32 lanes, else (or with ``SPARSEFLASH_INDEX_REGS=0``) reads the
  table in the loop; the dQ kernel walks every row at computed offsets when all of them
  are consecutive (``ROW_RUNS``), else every row through the table;
* every kernel is compiled without the walks and branches a layout cannot use: the
  forward's table walk when every row is consecutive (``ROW_RUNS``), the partial-block
  walks when no block has an element mask (``HAS_PARTIAL``), the split-row workspace
  branch when no row or column is split (``HAS_SPLITS``).
"""

import pytest
import torch

import sparseflash
from sparseflash.kernels import launch

from test_attention import ATOL, _trailing_padding, check_attention, make_qkv

pytestmark = pytest.mark.skipif(torch.cuda.is_available(),
                                reason="interpreter paths; tests/test_gpu.py covers the GPU")

# (name, B, Hq, Hkv, N, Nk, D, pattern, block): ragged last key block, GQA, a head dim
# that does not fill its tile, padding.
CASES = [
    ("ragged", 1, 2, 2, 70, 83, 32, "local(1) | global(1)", 32),
    ("gqa-d40", 2, 4, 2, 64, 64, 40, "causal", 16),
    ("padding", 2, 2, 1, 48, 48, 16, "dense", 16),
]


def _spy(monkeypatch, name):
    """Record what ``launch.<name>`` returns on each call."""
    seen, real = [], getattr(launch, name)

    def wrapper(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]
    monkeypatch.setattr(launch, name, wrapper)
    return seen


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_forward_through_tensor_descriptors(case, dtype, monkeypatch):
    name, B, Hq, Hkv, N, Nk, D, pattern, block = case
    monkeypatch.setenv("SPARSEFLASH_TMA", "1")
    used = _spy(monkeypatch, "_use_tma")
    q, k, v = make_qkv(B, Hq, Hkv, N, Nk, D, dtype=dtype, seed=3)
    kpm = _trailing_padding([Nk - 5, Nk // 2], Nk)[:B] if name == "padding" else None
    check_attention(q, k, v, pattern, backend="triton", block=block, key_padding_mask=kpm)
    assert used and all(used), "the forward did not take the descriptor path"


def test_descriptors_need_aligned_rows(monkeypatch):
    """A row stride of 40 bytes (fp16, the first 18 of 20 columns) cannot be described;
    the forward falls back to pointer loads and stays correct."""
    monkeypatch.setenv("SPARSEFLASH_TMA", "1")
    used = _spy(monkeypatch, "_use_tma")
    q, k, v = make_qkv(1, 2, 2, 40, 40, 20, dtype=torch.float16, seed=4)
    k, v = k[..., :18], v[..., :18]
    q = q[..., :18]
    check_attention(q, k, v, "local(1)", backend="triton", block=16)
    assert used and not any(used)


@pytest.mark.parametrize("setting, row_class, expected", [
    (None, 5, False), (None, 4, False),  # auto: on a Hopper GPU only, not the interpreter
    ("1", 0, True), ("1", 5, True), ("0", 5, False)])
def test_descriptor_policy(setting, row_class, expected, monkeypatch):
    """By default descriptors are for long rows on a Hopper GPU (tests/test_gpu.py checks
    that side); ``SPARSEFLASH_TMA`` forces them on (here: the interpreter's emulation) or
    off."""
    if setting is None:
        monkeypatch.delenv("SPARSEFLASH_TMA", raising=False)
    else:
        monkeypatch.setenv("SPARSEFLASH_TMA", setting)
    k = torch.zeros(1, 2, 64, 32)
    assert launch._use_tma(row_class, k, k) is expected


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("scale", [-30.0, 0.0, -0.0])
def test_non_positive_scale(dtype, scale):
    """The forward folds the scale into the softmax shift, which needs scale > 0; the
    launcher rewrites the others (q -> -q for a negative scale, q -> 0 for zero). At
    scale -30 the scaled scores span far more than exp2's range, and the padding leaves
    whole tiles without a key, where -inf times a negative scale would give +inf."""
    q, k, v = make_qkv(2, 2, 2, 50, 50, 16, dtype=dtype, seed=6)
    kpm = _trailing_padding([50, 14], 50)
    for backend in ("triton", "torch"):
        res = check_attention(q, k, v, "causal | global(1)", backend=backend, block=16,
                              scale=scale, key_padding_mask=kpm)
        assert torch.isfinite(res["out"]).all()


def test_later_launches_skip_the_autotuner(monkeypatch):
    """The autotuner runs on the first launch of each key only; the direct launches after
    it compute the same thing, and a new key (another dtype) goes through it again."""
    from sparseflash.kernels.forward import attention_forward_kernel
    fresh = launch._tuned(attention_forward_kernel, "fwd")
    autotuner_runs = []
    real_run = fresh.tuner.run

    def counting_run(*args, **kwargs):
        autotuner_runs.append(1)
        return real_run(*args, **kwargs)
    monkeypatch.setattr(fresh.tuner, "run", counting_run)
    monkeypatch.setattr(launch, "_forward", fresh)

    q, k, v = make_qkv(1, 2, 2, 70, 70, 32)
    outs = [sparseflash.attention(q, k, v, "local(1) | global(1)", block=32,
                                  backend="triton") for _ in range(3)]
    assert len(autotuner_runs) == 1 and len(fresh.picked) == 1
    assert torch.equal(outs[0], outs[1]) and torch.equal(outs[0], outs[2])
    sparseflash.attention(q.bfloat16(), k.bfloat16(), v.bfloat16(),
                          "local(1) | global(1)", block=32, backend="triton")
    assert len(autotuner_runs) == 2 and len(fresh.picked) == 2


# (pattern, N, block, B, D): layouts whose facts select each variant of the kernels' code,
# with (row_runs, has_partial, kv_slots > 0, q_slots > 0) as the layout reports them. At
# D > 64 the dQ kernel keeps its partial walk on every layout (launch.backward).
LAYOUT_FACTS = [
    ("local(1)", 64, 16, 1, 16, (1, 0, False, False)),
    ("local(1)", 64, 16, 1, 80, (1, 0, False, False)),
    ("butterfly", 64, 16, 1, 16, (0, 0, False, False)),
    ("causal", 64, 16, 2, 16, (1, 1, False, False)),
    ("dense", 70, 32, 1, 16, (1, 1, False, False)),                # ragged last block
    ("local(1) | global(1)", 256, 16, 2, 16, (0, 0, True, True)),  # the global row is split
    ("global(1) & causal", 256, 16, 1, 16, (1, 1, False, True)),   # column 0 is split
]


@pytest.mark.parametrize("case", LAYOUT_FACTS, ids=[f"{c[0]}-{c[1]}-d{c[4]}" for c in LAYOUT_FACTS])
def test_code_left_out_for_layout_facts(case):
    """Each combination of the layout facts the kernels are specialised on, forward and
    backward against the float64 golden run. The facts are asserted first, so a change to
    how a layout reports them cannot quietly leave a variant untested."""
    pattern, N, block, B, D, facts = case
    layout = sparseflash.compile_layout(pattern, N, block=block)
    meta = launch.LayoutMeta.of(layout)
    assert (meta.row_runs, meta.has_partial, meta.kv_slots > 0, meta.q_slots > 0) == facts
    q, k, v = make_qkv(B, 2, 2, N, N, D, seed=11)
    check_attention(q, k, v, pattern, backend="triton", block=block)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_consecutive_and_gapped_block_lists(dtype):
    """Rows of equal length, some consecutive and some with a gap, so that a wrong
    consecutive test (or a wrong offset on either walk) changes the forward's result (and
    the backward's, which reads O and the log-sum-exp); the ragged last key block is
    partial. Columns are checked too, for when the backward walks them the same way."""
    mask = torch.tensor([[1, 1, 1, 0, 0, 0],    # consecutive
                         [1, 0, 1, 1, 0, 0],    # a gap, the count of the row below
                         [0, 1, 1, 1, 0, 0],    # consecutive
                         [1, 0, 0, 0, 0, 1]],   # first and last only
                        dtype=torch.bool)
    layout = sparseflash.Layout.from_block_mask(mask, 64, kv_seq_len=90, block=16)
    full_blocks = mask[:, :5]  # the ragged last key block is partial, listed apart
    for lists in (full_blocks, full_blocks.T):  # rows, then columns
        full = [torch.nonzero(r).flatten().tolist() for r in lists]
        runs = [f for f in full if f and f[-1] - f[0] == len(f) - 1]
        assert runs and len(runs) < len([f for f in full if f])
    q, k, v = make_qkv(2, 2, 2, 64, 90, 16, dtype=dtype, seed=8)
    check_attention(q, k, v, layout, backend="triton", block=16)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("pattern", ["causal", "local(1)"])
@pytest.mark.parametrize("N", [90, 96])
def test_dkdv_column_runs_with_padding_and_a_ragged_block(pattern, dtype, N):
    """Layouts whose columns are all consecutive take the dK/dV run walk on transposed
    scores (COLUMN_RUNS): with key padding (the keys-first tile mask); N = 90, so the
    last query block's rows past N must be left to the masked walk, and N = 96, where
    the run walk takes every tile."""
    layout = sparseflash.compile_layout(pattern, N, block=16)
    assert layout.columns_are_runs()
    q, k, v = make_qkv(2, 2, 2, N, N, 32, dtype=dtype, seed=12)
    kpm = torch.rand(2, N, generator=torch.Generator().manual_seed(12)) < 0.3
    check_attention(q, k, v, layout, backend="triton", block=16, key_padding_mask=kpm)


def test_index_regs_by_stretch(monkeypatch):
    """Two register-vector sizes, and the table beyond them or when switched off."""
    assert [launch.index_regs(n) for n in (0, 1, 16, 17, 32, 33, 200)] == [16, 16, 16, 32,
                                                                         32, 0, 0]
    monkeypatch.setenv("SPARSEFLASH_INDEX_REGS", "0")
    assert launch.index_regs(4) == 0


# (pattern, N, block, INDEX_REGS expected): the forward's table walks of both register
# sizes (longer ones read the table, as every case does with the setting off).
# strided(2) lists every other block: 17 full ones per row at N = 550 (35 blocks, the
# last ragged). The global row of the random layout is split into chunks, whose stretch
# is what counts.
TABLE_WALKS = [
    ("butterfly", 150, 16, 16),
    ("strided(2)", 550, 16, 32),
    ("local(1) | global(1) | random(2)", 512, 16, 16),
]


@pytest.mark.parametrize("from_registers", [True, False], ids=["registers", "table"])
@pytest.mark.parametrize("case", TABLE_WALKS, ids=[f"{c[0]}-{c[1]}" for c in TABLE_WALKS])
def test_table_walks_from_registers_and_from_the_table(case, from_registers, monkeypatch):
    """Rows that are not consecutive walk the table in the forward; their indices come
    from a register vector of the expected size (asserted, so that each variant stays
    covered) or, switched off, from the table in the loop. Forward and gradients against
    float64; the last block of butterfly and strided(2) is ragged, the random layout's
    global row split."""
    pattern, N, block, lanes = case
    if not from_registers:
        monkeypatch.setenv("SPARSEFLASH_INDEX_REGS", "0")
        lanes = 0
    layout = sparseflash.compile_layout(pattern, N, block=block)
    meta = launch.LayoutMeta.of(layout)
    assert not meta.row_runs
    assert launch.index_regs(meta.row_stretch) == lanes
    q, k, v = make_qkv(1, 2, 2, N, N, 16, seed=21)
    check_attention(q, k, v, layout, backend="triton", block=block)


def test_launch_plans_follow_strides_batch_and_settings(monkeypatch):
    """The launchers keep what they decide per set of shapes (``launch._PLANS``): a repeat
    call reuses its plans, and calls that differ only in what a plan's key must hold get
    plans of their own and right answers: strides with gaps (whose gradients are then
    allocated contiguous, unlike the inputs), another batch size with the same strides,
    another environment setting."""
    pattern, block = "local(1) | global(1)", 16
    q, k, v = make_qkv(2, 2, 2, 64, 64, 16, seed=3)
    launch.clear_plans()
    check_attention(q, k, v, pattern, backend="triton", block=block)
    plans = dict(launch._PLANS)
    assert len(plans) == 2  # the forward's and the backward's
    check_attention(q, k, v, pattern, backend="triton", block=block)
    assert launch._PLANS.keys() == plans.keys()
    assert all(launch._PLANS[key] is plan for key, plan in plans.items())

    wide = make_qkv(2, 2, 2, 64, 64, 32, seed=4)
    gapped = [t[..., :16] for t in wide]  # rows 32 apart: not dense
    assert gapped[0].shape == q.shape and gapped[0].stride() != q.stride()
    check_attention(*gapped, pattern, backend="triton", block=block)
    assert len(launch._PLANS) == 4
    first = [t[:1] for t in (q, k, v)]  # batch 1, the same strides as batch 2
    assert first[0].stride() == q.stride()
    check_attention(*first, pattern, backend="triton", block=block)
    assert len(launch._PLANS) == 6
    monkeypatch.setenv("SPARSEFLASH_INDEX_REGS", "0")
    check_attention(q, k, v, pattern, backend="triton", block=block)
    assert len(launch._PLANS) == 8
    # Deterministic algorithms and the fused-backward setting are part of the key too.
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        check_attention(q, k, v, pattern, backend="triton", block=block)
    finally:
        torch.use_deterministic_algorithms(False)
    assert len(launch._PLANS) == 10
    monkeypatch.setenv("SPARSEFLASH_FUSED_BACKWARD", "0")
    check_attention(q, k, v, pattern, backend="triton", block=block)
    assert len(launch._PLANS) == 12
    monkeypatch.setenv("SPARSEFLASH_PINGPONG", "0")
    check_attention(q, k, v, pattern, backend="triton", block=block)
    assert len(launch._PLANS) == 14


@pytest.mark.parametrize("reversed_", [False, True], ids=["in-order", "reversed"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_fused_backward_delta_kernel(dtype, reversed_):
    """The fused backward's first launch (``hopper_fused.delta_kernel``; the fused kernel
    itself is Gluon, which has no interpreter): ``delta = scale * rowsum(dO * O)`` on a
    strided O, a ragged last row tile, and every row of the float32 dQ accumulator zeroed,
    with the programs taking heads and row tiles first to last or last to first."""
    from sparseflash.kernels import hopper_fused
    B, H, N, D = 2, 3, 100, 32
    gen = torch.Generator().manual_seed(0)
    o = torch.randn(B, N, H, D, generator=gen).to(dtype).transpose(1, 2)  # (B, H, N, D)
    do = torch.randn(B, H, N, D, generator=gen).to(dtype)
    delta = torch.full((B, H, N), float("nan"))
    dq_acc = torch.full((B * H * N, D), float("nan"))
    hopper_fused.delta_kernel[(-(-N // 64), B * H)](
        o, do, delta, dq_acc, 0.125, *o.stride()[:3], *do.stride()[:3], H, N, D=D,
        BLOCK_M=64, REVERSED=reversed_)
    expected = (o.float() * do.float()).sum(-1) * 0.125
    torch.testing.assert_close(delta, expected, rtol=1e-5, atol=1e-5)
    assert torch.equal(dq_acc, torch.zeros_like(dq_acc))


@pytest.mark.parametrize("reversed_", [False, True], ids=["in-order", "reversed"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_fused_backward_dq_cast_kernel(dtype, reversed_):
    """The fused backward's last launch (``hopper_fused.dq_cast_kernel``): the float32 dQ
    sum (B*H*N, D) into dQ (B, H, N, D) of the inputs' dtype and strides, rounded as
    ``Tensor.to`` rounds (to nearest even; the interpreter truncates to bfloat16, so there
    within one unit in the last place: ``test_gpu`` checks the GPU's bit for bit), a
    ragged last row tile included."""
    from sparseflash.kernels import hopper_fused
    B, H, N, D = 2, 3, 100, 32
    gen = torch.Generator().manual_seed(1)
    dq_acc = torch.randn(B * H * N, D, generator=gen) * 3
    dq = torch.full((B, N, H, D), float("nan"), dtype=dtype).transpose(1, 2)
    hopper_fused.dq_cast_kernel[(-(-N // 64), B * H)](
        dq_acc, dq, *dq.stride()[:3], H, N, D=D, BLOCK_M=64, REVERSED=reversed_)
    expected = dq_acc.view(B, H, N, D).to(dtype)
    if dtype == torch.float16:
        assert torch.equal(dq, expected)
    else:
        ulp = expected.float().abs() * 2.0 ** -7
        assert ((dq.float() - dq_acc.view(B, H, N, D)).abs() <= ulp).all()


def test_fused_backward_setting(monkeypatch):
    """``SPARSEFLASH_FUSED_BACKWARD`` takes auto, 0 or 1, and the fused kernel never runs
    off an sm_90 GPU."""
    from sparseflash.kernels import hopper_fused
    q = torch.zeros(1, 2, 256, 128, dtype=torch.bfloat16)
    assert hopper_fused.usable(q, q, q, q, 128, 0.0, False, True) is False
    monkeypatch.setenv("SPARSEFLASH_FUSED_BACKWARD", "yes")
    with pytest.raises(ValueError, match="SPARSEFLASH_FUSED_BACKWARD"):
        hopper_fused.choice()


def test_fused_backward_tiles():
    """The fused backward's tiles (key rows, query rows, register cap) by head dim and
    layout block; at D=64 a call with dropout on partial blocks takes 128 x 64 (the
    128 x 128 tile spills there, NOTES v38), every other call 128 x 128."""
    from sparseflash.kernels import hopper_fused
    assert hopper_fused.tiles(128, 128) == hopper_fused.tiles(128, 128, True) == (128, 64, 168)
    assert hopper_fused.tiles(64, 256) == (128, 128, 168)
    assert hopper_fused.tiles(64, 128, partial_dropout=True) == (128, 64, 168)
    assert hopper_fused.tiles(64, 64) == hopper_fused.tiles(64, 64, True) == (64, 64, 128)
    assert hopper_fused.tiles(64, 32) is None and hopper_fused.tiles(96, 128) is None


def test_fused_backward_issues_dk_early_only_where_two_warp_groups_exchange():
    """dK's product before the dS exchange (``DK_EARLY``, NOTES v40-v41) is bound only
    on tiles of two consumer warp groups (128 key rows): 64-row tiles exchange nothing."""
    from sparseflash.kernels import hopper_fused
    assert hopper_fused.dk_early(128) is hopper_fused.DK_EARLY
    assert not hopper_fused.dk_early(64)


def test_pingpong_forward_setting(monkeypatch):
    """``SPARSEFLASH_PINGPONG`` takes auto (the ping-pong kernel at D=128, and at D=64 on
    layouts with partial blocks and long rows, or with dropout), 1 (at D=64 too) or 0
    (never)."""
    from sparseflash.kernels import hopper_pingpong
    monkeypatch.delenv("SPARSEFLASH_PINGPONG", raising=False)
    available = hopper_pingpong.AVAILABLE
    assert (hopper_pingpong.chosen(128), hopper_pingpong.chosen(64)) == (available, False)
    long_rows = hopper_pingpong.D64_MASKED_ROW_KEYS
    assert hopper_pingpong.chosen(64, masked_row_keys=long_rows) == available
    assert hopper_pingpong.chosen(64, masked_row_keys=long_rows - 128) is False
    assert hopper_pingpong.chosen(64, dropout=True) == available
    monkeypatch.setenv("SPARSEFLASH_PINGPONG", "1")
    assert (hopper_pingpong.chosen(128), hopper_pingpong.chosen(64)) == (available, available)
    monkeypatch.setenv("SPARSEFLASH_PINGPONG", "0")
    assert (hopper_pingpong.chosen(128), hopper_pingpong.chosen(64)) == (False, False)
    monkeypatch.setenv("SPARSEFLASH_PINGPONG", "yes")
    with pytest.raises(ValueError, match="SPARSEFLASH_PINGPONG"):
        hopper_pingpong.chosen(128)
