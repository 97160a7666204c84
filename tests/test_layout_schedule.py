"""The program schedule: every listed block walked exactly once, long rows split, longest
first (or in another of the known orders), uniform layouts left whole."""

import pytest
import torch

from sparseflash import compile_layout
from sparseflash.layout.schedule import (FULL_END, FULL_START, ORDERS, PARTIAL_END,
                                         PARTIAL_START, ROW, SLOT, build_schedule,
                                         chunk_limit, program_order)


def _offsets(counts):
    off = torch.zeros(len(counts) + 1, dtype=torch.long)
    off[1:] = torch.cumsum(torch.tensor(counts), 0)
    return off


def _covered(entries, full_off, part_off):
    """(row, 'full'|'partial', position) for every block position the entries walk."""
    seen = []
    for e in entries.tolist():
        for kind, lo, hi, off in (("full", e[FULL_START], e[FULL_END], full_off),
                                  ("partial", e[PARTIAL_START], e[PARTIAL_END], part_off)):
            assert off[e[ROW]] <= lo <= hi <= off[e[ROW] + 1], "stretch leaves its row"
            seen += [(e[ROW], kind, p) for p in range(lo, hi)]
    return seen


@pytest.mark.parametrize("full,partial,limit", [
    ([3, 40, 2, 0, 5], [1, 1, 0, 0, 2], 8),
    ([0, 0, 0], [0, 0, 0], 8),
    ([17], [0], 4),
    ([0], [17], 4),
    ([9, 9, 9, 9], [1, 1, 1, 1], None),
])
def test_every_block_exactly_once(full, partial, limit):
    full_off, part_off = _offsets(full), _offsets(partial)
    sched = build_schedule(full_off, part_off, limit)
    seen = _covered(sched.entries, full_off, part_off)
    expected = [(r, "full", p) for r in range(len(full))
                for p in range(full_off[r], full_off[r + 1])]
    expected += [(r, "partial", p) for r in range(len(full))
                 for p in range(part_off[r], part_off[r + 1])]
    assert sorted(seen) == sorted(expected)
    # Every row has a program, empty rows too (their program writes zeros).
    assert set(sched.entries[:, ROW].tolist()) == set(range(len(full)))


def test_long_rows_split_into_bounded_chunks_longest_first():
    counts = [4, 4, 64, 4, 4, 4, 4, 4]
    full_off, part_off = _offsets(counts), _offsets([0] * len(counts))
    sched = build_schedule(full_off, part_off)
    limit = chunk_limit(torch.tensor(counts))
    e = sched.entries.long()
    lengths = (e[:, FULL_END] - e[:, FULL_START] + e[:, PARTIAL_END] - e[:, PARTIAL_START])
    assert lengths.max() <= limit
    assert lengths.tolist() == sorted(lengths.tolist(), reverse=True)
    assert sched.split_rows.tolist() == [2]
    chunks = e[e[:, ROW] == 2]
    assert len(chunks) == -(-64 // limit) and (chunks[:, SLOT] >= 0).all()
    assert (e[e[:, ROW] != 2][:, SLOT] == -1).all()
    # The split row's slots, each once; padding points past the last slot.
    slots = sched.split_slots[0]
    assert sorted(slots[slots < sched.num_slots].tolist()) == sorted(chunks[:, SLOT].tolist())


@pytest.mark.parametrize("pattern", ["dense", "causal", "local(3)", "butterfly",
                                     "strided(8)"])
def test_uniform_layouts_are_not_split(pattern):
    layout = compile_layout(pattern, 4096, block=64)
    programs, slots, split = layout.schedule_sizes()
    assert (programs, slots, split) == (layout.num_q_blocks, 0, 0)


def test_global_rows_are_split():
    layout = compile_layout("local(1) | global(1) | random(2)", 8192, block=128)
    programs, slots, split = layout.schedule_sizes()
    assert split == 1 and slots > 1 and programs == layout.num_q_blocks - 1 + slots
    tables = layout.kernel_tables()
    assert tables[12].tolist() == [0]  # the global row is the one split
    assert tables[11].shape == (1, slots)


def test_ragged_last_row_can_be_split():
    mask = torch.eye(19, dtype=torch.bool)[None].clone()
    mask[0, -1] = True  # the last, ragged query row (12 tokens) lists every key block
    layout = compile_layout(mask, 300, block=16)
    assert layout.schedule_sizes()[2] == 1
    assert layout.kernel_tables()[12].tolist() == [18]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("full,partial,limit", [
    ([3, 40, 2, 0, 5, 9, 9, 1], [1, 1, 0, 0, 2, 0, 0, 0], 8),
    ([0, 0, 0], [0, 0, 0], None),
])
def test_every_order_keeps_the_entries(order, full, partial, limit):
    full_off, part_off = _offsets(full), _offsets(partial)
    longest = build_schedule(full_off, part_off, limit)
    sched = build_schedule(full_off, part_off, limit, order=order)
    # The same entries (rows, stretches, slots), only their order differs; the split
    # rows' tables do not depend on it.
    assert sorted(sched.entries.tolist()) == sorted(longest.entries.tolist())
    assert torch.equal(sched.split_slots, longest.split_slots)
    assert torch.equal(sched.split_rows, longest.split_rows)


def test_program_orders():
    # Entries in row order, of these lengths (blocks); 1.5 x the mean length is 12.75.
    lengths = torch.tensor([3, 40, 2, 0, 5, 8, 8, 1])
    taken = {order: lengths[program_order(lengths, order)].tolist() for order in ORDERS}
    assert taken["longest"] == [40, 8, 8, 5, 3, 2, 1, 0]
    assert taken["natural"] == lengths.tolist()
    # Classes [32, 64), [8, 16), [4, 8), [2, 4) (3 and 2), and [1, 2) (0 counted as 1).
    assert taken["classes"] == [40, 8, 8, 5, 3, 2, 0, 1]
    assert taken["long first"] == [40, 3, 2, 0, 5, 8, 8, 1]
    # Ties keep row order: the two rows of 8 blocks, rows 5 and 6.
    assert program_order(lengths, "longest").tolist()[1:3] == [5, 6]
    with pytest.raises(ValueError, match="unknown program order 'shortest'"):
        program_order(lengths, "shortest")


def test_a_per_head_layout_in_natural_order_runs_its_heads_in_turn():
    # The columns of a per-head layout's schedule are h * num_kv_blocks + j: in natural
    # order each head's columns run together, which longest first mixes.
    layout = compile_layout("per_head(local(1) | random(2, 0), local(1) | random(2, 1))",
                            4096, block=128, num_heads=2)
    offsets = [layout._build(name, cpu=True) for name in ("full_q_offsets",
                                                          "partial_q_offsets")]
    heads = build_schedule(*offsets, order="natural").entries[:, ROW] // layout.num_kv_blocks
    assert heads.tolist() == sorted(heads.tolist())
    heads = build_schedule(*offsets).entries[:, ROW] // layout.num_kv_blocks
    assert heads.tolist() != sorted(heads.tolist())
