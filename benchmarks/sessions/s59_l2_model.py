"""Session 59: a model of the fused backward's L2 hits on query tiles, by column order.

Call 3 (`s59-call3.sh`) found `local(1) | random(2)` at D=128 losing rate in the backward
from 16K to 64K tokens (B = 1, 16 heads: 0.618 ms by difference at 16K, 3.095 ms at 64K
where 4.04 times the work predicts 2.497), while its forward, the same pattern at D=64
(+3%), `local(3)` and `butterfly` did not. A column program of the fused backward visits
its column's query tiles one after another; each visit reads the tile's Q and dO and adds
into its float32 dQ sum, 128 rows x D x (2 + 2 + 4) bytes: 128 KB at D=128, so one head's
512 tiles at 64K are 64 MB, more than the H100's 50 MB L2; at D=64 or 16K they fit.
The grid runs a broadcast layout's column schedule head by head, and the schedule is
longest first (`layout.schedule.build_schedule`): with columns of unequal length (random
blocks) the programs running at once come from all over the head, so even their
neighbouring tiles are far apart in time.

The model: 132 SMs, one program each, started in grid order on the first free SM; a
program spends ``START`` steps before its first visit and one step a visit. The visits'
time order is played through an LRU cache of ``capacity // tile_bytes`` tiles (Q, dO and
dQ's sum of a tile live or die together). It prints the share of visits that miss, and
the HBM bytes those misses move (a missed tile: Q and dO read, dQ's sum read and written
back), for the schedule as built and for three other orders of the same entries:

* ``natural``: by column, as the layout numbers them;
* ``classes``: longest first by length class (``floor(log2(length))``), by column within a
  class;
* ``long first``: entries longer than 1.5 times the mean first (longest first), the rest
  by column.

It also prints each order's makespan (the grid's steps to its last visit) against the
built order's: the tail that longest first exists to shorten. The same is done for the
forwards' rows (their key tiles: K and V, 4 bytes an element) and for a per-head layout,
whose one schedule holds all heads' rows, so that its grid mixes the heads.

It is a model of reuse, not of the GPU: no L2 partitions, no K and V in the backward, no
prefetch, equal steps. Its use is to say which orders might keep tiles in L2 before a
GPU call measures them.

    python benchmarks/sessions/s59_l2_model.py

Result (2026-12-07): see the Result section at the end of this file.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict

import torch

import sparseflash
from sparseflash.layout.schedule import (FULL_END, FULL_START, PARTIAL_END, PARTIAL_START, ROW,
                                         program_order)

SMS = 132
START = 2  # steps before a program's first visit (K and V loaded, the prologue)
HEADS = 16
MB = 1 << 20
#: A per-head layout: four random draws over the 16 heads.
PER_HEAD = "per_head(" + ", ".join(f"local(1) | random(2, {seed})" for seed in range(4)) + ")"


#: Per axis: the schedule and lists the programs walk, the layout's blocks a head along
#: the other axis, the bytes a tile's element keeps in L2 and moves from HBM on a miss,
#: and the programs running at once.
AXES = {
    # The fused backward's columns: Q and dO (bf16) read, dQ's float32 sum added into
    # (read and written back on a miss); one program an SM.
    "q": ("q_schedule", "full_q_flat", "partial_q_flat", "num_kv_blocks", 8, 12, SMS),
    # The forwards' rows: K and V (bf16) read; two programs an SM (the D=64 kernel), or
    # one program's two warp groups taking an item each (D=128's ping-pong kernel).
    "kv": ("kv_schedule", "full_kv_flat", "partial_kv_flat", "num_q_blocks", 4, 4, 2 * SMS),
}


def program_tiles(layout, axis: str = "q"):
    """-> (entries (P, 6) int64, per entry the tiles it visits as (layout head, block)):
    a backward column's query tiles (``axis="q"``) or a forward row's key tiles
    (``"kv"``). A per-head layout's schedule holds every head's rows (row ``h * n +
    i``); a broadcast layout's, one head's, which the grid runs for each head in turn."""
    schedule, full_name, part_name, per_head, *_ = AXES[axis]
    entries = layout._build(schedule, cpu=True).long()
    full = layout._build(full_name, cpu=True).tolist()
    part = layout._build(part_name, cpu=True).tolist()
    n = getattr(layout, per_head)
    tiles = [[(e[ROW] // n, j)
              for j in full[e[FULL_START]:e[FULL_END]] + part[e[PARTIAL_START]:e[PARTIAL_END]]]
             for e in entries.tolist()]
    return entries, tiles


def orders(entries, tiles):
    """{name: permutation of the entries}: the built one and ``schedule.program_order``'s
    others (which take entries in row order: the built entries sorted by row)."""
    rows = entries[:, ROW].tolist()
    by_row = sorted(range(len(tiles)), key=lambda i: rows[i])
    lengths = torch.tensor([len(tiles[i]) for i in by_row])
    return {"built (longest first)": list(range(len(tiles))),
            **{name: [by_row[j] for j in program_order(lengths, name).tolist()]
               for name in ("natural", "classes", "long first")}}


def visits(order, tiles, heads=HEADS, slots=SMS, start=START):
    """(time, tile) of every visit, in time order, for the grid that runs ``order``'s
    entries ``heads`` times (once per head of a broadcast layout: the grid's second id)
    on ``slots`` program slots (SMs times programs an SM); a tile is (grid head, layout
    head, block)."""
    free = [(0, slot) for slot in range(slots)]
    events = []
    for h in range(heads):
        for i in order:
            t0, slot = heapq.heappop(free)
            for step, tile in enumerate(tiles[i]):
                events.append((t0 + start + step, (h, *tile)))
            heapq.heappush(free, (t0 + start + len(tiles[i]), slot))
    events.sort(key=lambda e: e[0])
    return events


def misses(events, capacity_tiles: int) -> int:
    """How many of ``events``' visits find their tile outside an LRU cache of
    ``capacity_tiles`` tiles (every visit loads or refreshes its tile)."""
    cache: OrderedDict = OrderedDict()
    missed = 0
    for _, key in events:
        if key in cache:
            cache.move_to_end(key)
        else:
            missed += 1
            cache[key] = None
            if len(cache) > capacity_tiles:
                cache.popitem(last=False)
    return missed


def main():
    print(f"{SMS} SMs, {HEADS} heads, {START} steps before a program's first visit")
    for axis, what in (("q", "backward columns"), ("kv", "forward rows")):
        *_, keeps, moves, programs = AXES[axis]
        print(f"\n{what}: {programs} programs at once; a tile keeps {keeps} bytes an element "
              f"in L2 and moves {moves} on a miss")
        for pattern in ("local(1) | random(2)", "local(1) | global(1) | random(2)",
                        "local(3)", "butterfly", PER_HEAD):
            for n in (16384, 65536):
                layout = sparseflash.compile_layout(pattern, n, block=128, num_heads=HEADS)
                entries, tiles = program_tiles(layout, axis)
                base = None
                for name, order in orders(entries, tiles).items():
                    events = visits(order, tiles, heads=HEADS // layout.num_heads,
                                    slots=programs)
                    span = events[-1][0] + 1
                    base = base or span
                    print(f"{pattern[:34]:34s} N={n:6d} {name:22s} makespan {span} steps "
                          f"({100 * (span / base - 1):+.2f}%)")
                    for d in (64, 128):
                        for capacity in (25, 50):
                            m = misses(events, capacity * MB // (128 * d * keeps))
                            print(f"{pattern[:34]:34s} N={n:6d} D={d:3d} L2 {capacity} MB "
                                  f"{name:22s} visits {len(events):6d} missed "
                                  f"{100 * m / len(events):5.1f}% "
                                  f"({m * 128 * d * moves / 1e9:5.2f} GB)")


if __name__ == "__main__":
    main()

# Result (2026-12-07, this machine's CPU, 3 s; missed visits, 50 MB / 25 MB of L2):
# - At 16K every order of every pattern misses only each tile's first visit in a head
#   (12.5-20.3%): a head's tiles (16 MB at D=128) fit.
# - `local(1) | random(2)` at 64K, D=128: built 37.0% / 64.7%, natural 27.9% / 43.1%,
#   classes 30.9% / 50.6%, long first 29.9% / 45.1%; first visits alone 20.1%. D=64: 20.1%
#   (every order) / 27.9-37.0%. Makespans against the built order's: natural +0.9%,
#   classes +0.2%, long first +0.9%.
# - `local(1) | global(1) | random(2)` at 64K, D=128: built 31.6% / 56.9%, natural and
#   long first 26.2% / 42.4%, classes 27.2% / 43.3%; makespans +0.2-0.4%.
# - `local(3)` at 64K: 14.3-14.5% in every order and size (neighbouring tiles only).
# - `butterfly` at 64K, D=128: 18.2% / 32.6% in every order (its columns are equal, so the
#   orders are one) against 10.0% first visits, yet the GPU showed it no slower at 64K
#   than at 16K (call 3's neighbour rows; NOTES v60): the model counts misses, and
#   misses that the copies' pipelining hides cost nothing. So: a candidate for the GPU
#   (`s59_column_order_ab.py`), not a prediction of time.
# - A per-head `local(1) | random(2, seed)` (four seeds over 16 heads), whose one schedule
#   holds every head's columns: at 16K, built 68.4% (D=128) and 65.8% (D=64) against
#   20.2% natural (makespan +4.6%), 28.0% / 26.3% long first (+2.7%), 35.2% / 33.1%
#   classes (+0.0%); at 64K, D=128, 70.1% against 27.2-39.5%.
# - The forwards' rows (K and V, half the bytes, two programs an SM): 14.4-20.3% in every
#   order for the broadcast layouts at both lengths (a head's K and V, 32 MB at 64K and
#   D=128, fit); the per-head layout 21.3-23.4% built against 20.1-20.2%. The order
#   matters to the backward only.
