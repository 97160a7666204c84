"""Filling the fused backward's last wave: the schedule's simulation of a grid of equal
programs (``schedule.fill_last_wave``), which layouts have equal columns and rows
(``Layout.uniform_blocks``), the rule's gates (``hopper_fused.fill_plan``) and the sum of
the chunked columns' dK and dV (``backward.sum_split_rows_kernel`` with ``CHUNKED``, in
the interpreter). The fused kernel's chunks themselves run on sm_90 GPUs only: tests/test_gpu.py
checks them against float64."""

import heapq
import math
import random

import pytest
import torch

from sparseflash import compile_layout
from sparseflash.layout.schedule import (_makespan, _makespan_shared, fill_last_wave,
                                         filled_programs)


@pytest.fixture
def sms_132(monkeypatch):
    """A GPU of 132 SMs (an H100's or H200's), as the plans read it."""
    class Props:
        multi_processor_count = 132

    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device: Props)


def _one_by_one(lengths, slots):
    """When the last of ``lengths`` ends, each started in order on the first free place:
    the simulation written the plain way, a program at a time."""
    free = [0.0] * slots
    end = 0.0
    for length in lengths:
        start = heapq.heappop(free)
        heapq.heappush(free, start + length)
        end = max(end, start + length)
    return end


@pytest.mark.parametrize("seed", range(40))
def test_makespan_matches_a_program_at_a_time(seed):
    rng = random.Random(seed)
    slots = rng.randint(1, 20)
    whole, chunks = rng.randint(0, 70), rng.randint(0, 90)
    whole_len, chunk_len = rng.randint(5, 40), rng.randint(1, 20)
    expected = _one_by_one([whole_len] * whole + [chunk_len] * chunks, slots)
    assert _makespan(whole, chunks, whole_len, chunk_len, slots) == expected


@pytest.mark.parametrize("seed", range(40))
def test_shared_places_at_half_rate_alone_are_twice_the_places(seed):
    """Two programs a place, each at half its rate even alone: the plain simulation on
    twice the places with programs twice as long (whole rounds counted, not run, among
    them: up to 170 whole programs on 1-20 places)."""
    rng = random.Random(seed)
    slots = rng.randint(1, 20)
    whole, chunks = rng.randint(0, 170), rng.randint(0, 90)
    whole_len, chunk_len = rng.randint(5, 40), rng.randint(1, 20)
    expected = _one_by_one([2 * whole_len] * whole + [2 * chunk_len] * chunks, 2 * slots)
    assert math.isclose(_makespan_shared(whole, chunks, whole_len, chunk_len, slots, 0.5),
                        expected)


def test_shared_place_runs_a_lone_program_faster():
    """One place, three programs of 4 blocks: the first two together end at 8, the third
    alone at 8 + 4 / lone_rate. Two places: one each, at the lone rate."""
    assert _makespan_shared(3, 0, 4, 0, 1, lone_rate=1.0) == 12
    assert math.isclose(_makespan_shared(3, 0, 4, 0, 1, lone_rate=0.75), 8 + 4 / 0.75)
    assert math.isclose(_makespan_shared(2, 0, 4, 0, 2, lone_rate=0.75), 4 / 0.75)
    assert _makespan_shared(0, 0, 4, 2, 3) == 0


@pytest.mark.parametrize("groups,programs,expected", [
    (16, 128, (16, 1)),  # the README's shape: 7.8 waves of two programs an SM, left whole
    (1, 128, (0, 2)),    # one head of 16K tokens: one program an SM, halves two an SM
    (3, 128, (2, 2)),    # 1.45 waves: the last head's rows halved
    (1, 140, (0, 3)),
])
def test_two_programs_an_sm_plans(groups, programs, expected):
    """``shared``: ``hopper``'s D=64 forward (two programs an SM, one alone at 75% of the
    SM's rate) on 132 SMs, 128 blocks a row."""
    assert fill_last_wave(groups, programs, 128, 132, shared=True) == expected
    fill_from, chunks = expected
    plain = _makespan_shared(groups * programs, 0, 129, 0, 132)
    filled = _makespan_shared(fill_from * programs, (groups - fill_from) * programs * chunks,
                              129, -(-128 // chunks) + 1, 132)
    assert filled <= plain * (0.99 if chunks > 1 else 1)


def test_filled_programs_count_the_whole_and_the_chunks():
    """The grid a plan launches: 15 whole heads of 128 programs and the last head's 128
    in three chunks each; without chunks, every program once."""
    assert filled_programs(16, 128, (15, 3)) == 15 * 128 + 3 * 128
    assert filled_programs(1, 140, (0, 4)) == 560
    assert filled_programs(16, 128, (16, 1)) == filled_programs(16, 128, (3, 1)) == 2048


def test_sixteen_heads_of_dense_columns_fill_their_half_wave():
    """N=16K at block 128, 16 heads, 132 SMs: 2,048 columns are 15.5 waves. Three chunks
    of the last head's columns end the grid ~2% sooner (two chunks gain nothing: 2,048
    blocks' worth do not fit in 15.5 waves)."""
    assert fill_last_wave(16, 128, 128, 132) == (15, 3)
    plain = _makespan(16 * 128, 0, 129, 0, 132)
    filled = _makespan(15 * 128, 128 * 3, 129, 43 + 1, 132)
    assert filled < 0.985 * plain
    halves = _makespan(15 * 128, 128 * 2, 129, 64 + 1, 132)
    assert halves >= plain


@pytest.mark.parametrize("groups,programs,blocks,slots", [
    (33, 128, 128, 132),   # 32 whole waves: nothing idle
    (16, 128, 7, 132),     # columns too short to cut
    (1, 100, 128, 132),    # under one wave: every program already has its own SM
    (0, 128, 128, 132),
])
def test_grids_without_an_idle_last_wave_stay_whole(groups, programs, blocks, slots):
    assert fill_last_wave(groups, programs, blocks, slots) == (groups, 1)


def test_a_grid_just_over_one_wave_is_cut_finely():
    """140 columns on 132 SMs take two waves whole; cut, about 1.07."""
    fill_from, chunks = fill_last_wave(1, 140, 128, 132)
    assert chunks == 4 and fill_from == 0
    assert _makespan(0, 140 * 4, 129, 33, 132) < 0.7 * _makespan(140, 0, 129, 0, 132)


@pytest.mark.parametrize("pattern,expected", [
    ("dense", 32), ("chunk(8)", 8), ("butterfly", 6), ("causal", 0), ("local(3)", 0),
    ("local(1) | global(1)", 0),  # a global column is split: not equal columns
])
def test_uniform_blocks(pattern, expected):
    layout = compile_layout(pattern, 4096, block=128)
    assert layout.uniform_blocks("q") == expected
    assert layout.kernel_meta()[-2] == expected
    # These layouts' rows are their columns mirrored: as uniform, or not.
    assert layout.uniform_blocks("kv") == expected
    assert layout.kernel_meta()[-1] == expected


def test_fill_plan_gates(monkeypatch, sms_132):
    """Only equal columns (``uniform_blocks`` > 0) of the 128-key tiles are chunked, and
    nothing with ``FILL_LAST_WAVE`` off; otherwise the SM count sets the plan."""
    from sparseflash.kernels import hopper_fused

    q = torch.empty(1, 16, 16384, 64)
    assert hopper_fused.fill_plan(q, 128, 16, 128, 128, False, False) == (15, 3)
    assert hopper_fused.fill_plan(q, 128, 16, 128, 0, False, False) == (16, 1)
    q64 = torch.empty(1, 16, 16384, 64)
    assert hopper_fused.fill_plan(q64, 256, 16, 64, 256, False, False) == (16, 1)  # 64 x 64
    monkeypatch.setattr(hopper_fused, "FILL_LAST_WAVE", False)
    assert hopper_fused.fill_plan(q, 128, 16, 128, 128, False, False) == (16, 1)


@pytest.mark.triton_on_cpu
@pytest.mark.parametrize("chunks,group0", [(3, 1), (2, 0)])
def test_chunked_columns_are_summed_into_their_heads(chunks, group0):
    """The sum kernel with ``CHUNKED``: slot ``entry * chunks + c`` of workspace group g
    holds chunk c of the column of schedule entry ``entry`` of (batch, kv head) group
    ``group0 + g``; each column's sum lands in that head's key rows, the other heads'
    rows untouched."""
    from sparseflash.kernels.backward import sum_split_rows_kernel
    B, H, Nk, D, block = 2, 2, 512, 32, 128
    layout = compile_layout("dense", Nk, block=block)
    sched = layout.kernel_tables()[13]
    programs = sched.shape[0]
    groups = B * H - group0
    ws = torch.randn(groups, programs * chunks, block, D)
    ws_2 = torch.randn_like(ws)
    out = torch.full((B, H, Nk, D), 7.0)
    out_2 = torch.full_like(out, 7.0)
    sum_split_rows_kernel[(programs, groups, 2 * block // 16)](
        ws, sched, sched, out, ws_2, out_2, *out.stride(), H, Nk, D, layout.num_kv_blocks, 1,
        programs * chunks, chunks, group0, LAYOUT_BLOCK=block, BLOCK_M=16, BLOCK_D=D,
        PAIR=True, CHUNKED=True)
    rows = sched[:, 0].long()  # each entry's key block
    for expected, got in ((ws, out), (ws_2, out_2)):
        want = torch.full_like(got, 7.0).view(B * H, Nk // block, block, D)
        sums = expected.view(groups, programs, chunks, block, D).sum(2)
        want[group0:, rows] = sums
        torch.testing.assert_close(got, want.view(B, H, Nk, D))


@pytest.mark.triton_on_cpu
@pytest.mark.parametrize("chunks,group0", [(3, 1), (2, 0)])
def test_chunked_rows_are_merged_into_their_heads(chunks, group0):
    """The merge kernel with ``CHUNKED``: slot ``entry * chunks + c`` of workspace group
    g holds chunk c (its normalised output and base-2 LSE) of the row of schedule entry
    ``entry`` of group ``group0 + g``; each row's merge (the chunks weighed by
    ``2^(lse_c - lse)``) lands in that head's query rows, the other heads' untouched. A
    chunk with no keys (LSE -inf) weighs nothing."""
    from sparseflash.kernels.forward import merge_split_rows_kernel
    B, H, N, D, block = 2, 2, 512, 32, 128
    layout = compile_layout("dense", N, block=block)
    sched = layout.kernel_tables()[10]
    programs = sched.shape[0]
    groups = B * H - group0
    gen = torch.Generator().manual_seed(chunks)
    ws_o = torch.randn(groups, programs * chunks, block, D, generator=gen)
    ws_lse = torch.randn(groups, programs * chunks, block, generator=gen) * 3
    ws_lse[:, 0, :5] = float("-inf")  # a chunk of no keys for some rows
    o = torch.full((B, H, N, D), 7.0)
    lse = torch.full((B, H, N), 7.0)
    merge_split_rows_kernel[(programs, groups, block // 16)](
        ws_o, ws_lse, sched, sched, o, lse, *o.stride(), H, N, D, layout.num_q_blocks, 1,
        programs * chunks, chunks, group0, LAYOUT_BLOCK=block, BLOCK_M=16, BLOCK_D=D,
        CHUNKED=True)
    rows = sched[:, 0].long()
    lse_c = ws_lse.view(groups, programs, chunks, block)
    o_c = ws_o.view(groups, programs, chunks, block, D)
    merged_lse = torch.logsumexp(lse_c * math.log(2), 2) / math.log(2)
    weights = torch.exp2(lse_c - merged_lse[:, :, None])
    want_o = torch.full_like(o, 7.0).view(B * H, N // block, block, D)
    want_lse = torch.full_like(lse, 7.0).view(B * H, N // block, block)
    want_o[group0:, rows] = (weights[..., None] * o_c).sum(2)
    want_lse[group0:, rows] = merged_lse
    torch.testing.assert_close(o, want_o.view(B, H, N, D))
    torch.testing.assert_close(lse, want_lse.view(B, H, N))


def test_forward_fill_plan_gates(monkeypatch, sms_132):
    """The persistent forward's plan: equal rows only, one item at a time on each SM's
    program, nothing with ``FILL_LAST_WAVE`` off or with ``MAX_PROGRAMS`` set (tests')."""
    from sparseflash.kernels import hopper_pingpong

    q = torch.empty(1, 16, 16384, 128)
    assert hopper_pingpong.fill_plan(q, 128, 16, 128, 128) == (15, 3)
    assert hopper_pingpong.fill_plan(q, 128, 16, 128, 0) == (16, 1)
    monkeypatch.setattr(hopper_pingpong, "MAX_PROGRAMS", 4)
    assert hopper_pingpong.fill_plan(q, 128, 16, 128, 128) == (16, 1)
    monkeypatch.setattr(hopper_pingpong, "MAX_PROGRAMS", None)
    monkeypatch.setattr(hopper_pingpong, "FILL_LAST_WAVE", False)
    assert hopper_pingpong.fill_plan(q, 128, 16, 128, 128) == (16, 1)


def test_own_forward_fill_plan_gates(monkeypatch, sms_132):
    """``hopper``'s own forward: equal rows only, two programs an SM at D=64 and one at
    D=128 (where the ping-pong kernel is turned off), nothing with ``FILL_LAST_WAVE``
    off."""
    from sparseflash.kernels import hopper

    q64 = torch.empty(1, 1, 16384, 64)
    assert hopper.fill_plan(q64, 128, 1, 128, 128) == (0, 2)
    assert hopper.fill_plan(q64, 128, 16, 128, 128) == (16, 1)
    assert hopper.fill_plan(q64, 128, 1, 128, 0) == (1, 1)
    q128 = torch.empty(1, 16, 16384, 128)
    assert hopper.fill_plan(q128, 128, 16, 128, 128) == (15, 3)  # as one program an SM
    monkeypatch.setattr(hopper, "FILL_LAST_WAVE", False)
    assert hopper.fill_plan(q64, 128, 1, 128, 128) == (1, 1)
