"""Work schedules: which kernel program takes which stretch of which layout row.

A kernel that gives each layout row to one program finishes when its longest row does. With
``global(1)`` in a pattern the global row lists every key block while the others list a
handful, so one program walks 128 blocks while the GPU idles (the "tail"). The schedule
fixes both halves of that:

* rows much longer than the average are *split* into chunks of near-equal length, each its
  own program; the forward merges their partial softmax results (each chunk's normalised
  output and log-sum-exp), gradient kernels add their partial sums;
* programs are ordered *longest first*, so the long ones start while short ones fill in
  (:func:`program_order` knows other orders, for measuring them).

Equal rows have a tail of their own: a grid of equal programs whose count is not a multiple
of the GPU's SMs leaves its last wave partly idle. :func:`fill_last_wave` plans, for the
fused backward's columns and the forwards' rows, which (batch, head) groups to run in
chunks after all the whole ones, by simulating the grid on the SMs (one program an SM, or
two sharing it: :func:`_makespan_shared`).

Everything here is CPU integer bookkeeping, built once per layout.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Tuple

import torch

#: Columns of a schedule entry.
ROW, FULL_START, FULL_END, PARTIAL_START, PARTIAL_END, SLOT = range(6)
FIELDS = 6


@dataclass(frozen=True)
class Schedule:
    """``entries (P, 6)`` int32: ``row, full_start, full_end, partial_start, partial_end,
    slot``, longest first. ``[full_start, full_end)`` indexes the full CSR flat list, the
    partial pair the partial one. ``slot`` is -1 for a row done by one program (it writes
    its result directly) and otherwise numbers the chunk's place in the workspace.

    ``split_slots (U, C)``: the slots of each split row, padded with ``S`` (no such slot:
    the merge skips it); ``split_rows (U,)``: their layout rows.
    """
    entries: torch.Tensor
    split_slots: torch.Tensor
    split_rows: torch.Tensor
    num_slots: int

    @property
    def num_programs(self) -> int:
        return self.entries.shape[0]

    @property
    def num_split_rows(self) -> int:
        return self.split_rows.numel()


def chunk_limit(counts: torch.Tensor, minimum: int = 8) -> int:
    """The longest stretch one program takes: twice the mean row length, at least
    ``minimum`` blocks. Uniform layouts (dense, local, causal, butterfly) never split;
    a global row among short ones does."""
    if counts.numel() == 0:
        return minimum
    mean = counts.double().mean().item()
    return max(minimum, 2 * int(-(-mean // 1)))


def build_schedule(full_offsets: torch.Tensor, partial_offsets: torch.Tensor,
                   limit: int | None = None, order: str = "longest") -> Schedule:
    """Schedule for rows given as CSR offsets ``(R + 1,)`` of their full and partial lists.

    A row of ``n > limit`` blocks becomes ``ceil(n / limit)`` chunks over its full list then
    its partial list, taken as one sequence. Every row gets at least one entry, empty ones
    too: their program still writes zeros (forward) or zero gradients.

    ``order``, of the entries (the order in which the GPU starts their programs): one of
    :data:`ORDERS`, see :func:`program_order`. The layouts' tables use ``"longest"``.
    """
    full_offsets, partial_offsets = full_offsets.long(), partial_offsets.long()
    n_full = full_offsets[1:] - full_offsets[:-1]
    n_part = partial_offsets[1:] - partial_offsets[:-1]
    counts = n_full + n_part
    limit = chunk_limit(counts) if limit is None else limit
    chunks = torch.clamp((counts + limit - 1) // limit, min=1)           # (R,)
    row = torch.repeat_interleave(torch.arange(counts.numel()), chunks)  # (P,)
    first = torch.cumsum(chunks, 0) - chunks
    k = torch.arange(row.numel()) - first[row]                           # chunk index in row
    c = chunks[row]
    # Chunk k of c covers positions [k*n//c, (k+1)*n//c) of the row's full+partial sequence.
    lo, hi = k * counts[row] // c, (k + 1) * counts[row] // c
    nf = n_full[row]
    full_start = full_offsets[row] + torch.minimum(lo, nf)
    full_end = full_offsets[row] + torch.minimum(hi, nf)
    part_start = partial_offsets[row] + torch.clamp(lo - nf, min=0)
    part_end = partial_offsets[row] + torch.clamp(hi - nf, min=0)

    split = c > 1
    num_slots = int(split.sum())
    slot = torch.full_like(row, -1)
    slot[split] = torch.arange(num_slots)  # a split row's chunks get consecutive slots
    split_rows = torch.nonzero(chunks > 1).flatten()
    widest = int(chunks[split_rows].max()) if split_rows.numel() else 0
    split_slots = torch.full((split_rows.numel(), widest), num_slots, dtype=torch.long)
    within = torch.arange(widest)
    first_slot = torch.cumsum(chunks[split_rows], 0) - chunks[split_rows]
    take = within[None, :] < chunks[split_rows][:, None]
    split_slots[take] = (first_slot[:, None] + within[None, :])[take]

    entries = torch.stack([row, full_start, full_end, part_start, part_end, slot], 1)
    taken = program_order(hi - lo, order)
    return Schedule(entries[taken].to(torch.int32), split_slots.to(torch.int32), split_rows,
                    num_slots)


#: The entry orders :func:`program_order` knows.
ORDERS = ("longest", "natural", "classes", "long first")


def program_order(lengths: torch.Tensor, order: str = "longest") -> torch.Tensor:
    """The permutation ``(P,)`` that puts entries given in row order (a split row's chunks
    in turn), of ``lengths (P,)`` blocks, in ``order``:

    * ``"longest"``: longest first, so that long programs start while short ones fill in;
    * ``"natural"``: row order, so that the programs running at once take neighbouring
      rows (columns), whose tiles along the other axis overlap;
    * ``"classes"``: by length class (lengths within a factor of two), the longest class
      first and row order within a class;
    * ``"long first"``: the entries over 1.5 times the mean length, longest first, then
      the others in row order.

    The last three are the fused backward's candidate column orders:
    ``benchmarks/sessions/s59_l2_model.py`` puts fewer of its query-tile visits outside a
    50 MB L2 under them than under ``"longest"`` where a layout has random blocks at long
    sequences or a layout of its own per head (benchmarks/NOTES.md, v60)."""
    if order not in ORDERS:
        raise ValueError(f"unknown program order {order!r}; known: {', '.join(ORDERS)}")
    if order == "natural" or lengths.numel() == 0:
        return torch.arange(lengths.numel())
    lengths = lengths.long()
    if order == "longest":
        key = lengths
    elif order == "classes":
        # The bit length of max(1, n): n in [2^(c-1), 2^c) is class c.
        key = torch.frexp(lengths.clamp(min=1).double()).exponent
    else:
        floored = lengths.clamp(min=1)
        key = torch.where(floored > 1.5 * floored.double().mean(), floored, 0)
    return torch.argsort(key, descending=True, stable=True)


def _makespan(whole: int, chunks: int, whole_len: float, chunk_len: float,
              slots: int) -> float:
    """When the last of ``whole`` programs of length ``whole_len`` and then ``chunks`` of
    length ``chunk_len`` ends, each started in that order on the first of ``slots`` free
    places (as the GPU hands out a grid's programs)."""
    rounds, extra = divmod(whole, slots)
    # (time a place is free, how many places): the whole programs' rounds.
    free = [(rounds * whole_len, slots - extra)]
    if extra:
        free.append(((rounds + 1) * whole_len, extra))
    end = free[-1][0] if whole else 0.0
    heapq.heapify(free)
    while chunks:
        time, count = heapq.heappop(free)
        while free and free[0][0] == time:  # places free at the same time, taken as one
            count += heapq.heappop(free)[1]
        taken = min(count, chunks)
        chunks -= taken
        heapq.heappush(free, (time + chunk_len, taken))
        end = max(end, time + chunk_len)
        if count > taken:
            heapq.heappush(free, (time, count - taken))
            break  # these places get no more work
    return end


#: The share of an SM's rate that one program of ``hopper``'s D=64 forward gets alone,
#: against two sharing it: the dense forward took 3.05 ms at one program an SM and 2.28
#: at two on an H200 (benchmarks/NOTES.md, v18).
LONE_RATE = 0.75


def _makespan_shared(whole: int, chunks: int, whole_len: float, chunk_len: float,
                     slots: int, lone_rate: float = LONE_RATE) -> float:
    """:func:`_makespan` where each of ``slots`` places (SMs) runs two programs at once,
    sharing its rate: together each advances half a block per unit of time, alone one
    advances ``lone_rate`` blocks. Programs start in grid order: one a place, then a
    second on each, then on the first place with room."""
    # While whole programs fill every place twice over they run in rounds of one pair a
    # place, all ending together: those rounds are counted, not simulated.
    rounds = max(0, whole // (2 * slots) - 1)
    whole -= rounds * 2 * slots
    if whole + chunks == 0:
        return rounds * 2 * whole_len
    lengths = [whole_len] * whole + [chunk_len] * chunks
    # Each place's time of its last event and its programs' remaining blocks; one entry a
    # place in the heap, (time its next program ends, place).
    start = rounds * 2 * whole_len
    state = [(start, lengths[place::slots][:2]) for place in range(slots)]
    taken = min(2 * slots, len(lengths))

    def rate(left: list) -> float:  # blocks per unit of time of each program on a place
        return 0.5 if len(left) == 2 else lone_rate

    def next_end(place: int) -> float:
        since, left = state[place]
        return since + min(left) / rate(left)

    ends = [(next_end(place), place) for place in range(slots) if state[place][1]]
    heapq.heapify(ends)
    end = start
    while ends:
        time, place = heapq.heappop(ends)
        since, left = state[place]
        done = (time - since) * rate(left)
        left = [rest - done for rest in left if rest - done > 1e-9 * whole_len]
        while len(left) < 2 and taken < len(lengths):
            left.append(lengths[taken])
            taken += 1
        state[place] = (time, left)
        end = time
        if left:
            heapq.heappush(ends, (next_end(place), place))
    return end


def filled_programs(groups: int, programs: int, plan: Tuple[int, int]) -> int:
    """How many programs (or work items) a grid of ``groups`` x ``programs`` runs under
    :func:`fill_last_wave`'s ``plan`` ``(fill_from, chunks)``: the whole ones of groups
    before ``fill_from``, then ``chunks`` of each of the later groups' (``groups *
    programs`` without chunks)."""
    fill_from, chunks = plan
    return programs * fill_from + programs * chunks * (groups - fill_from)


def fill_last_wave(groups: int, programs: int, blocks: int, slots: int,
                   max_chunks: int = 4, min_chunk_blocks: int = 8,
                   overhead: float = 1.0, min_gain: float = 0.01,
                   shared: bool = False) -> Tuple[int, int]:
    """``(fill_from, chunks)``: how a grid of ``groups`` x ``programs`` equal programs of
    ``blocks`` blocks each, on ``slots`` places that run one program each (SMs), fills
    its last wave. Groups ``fill_from`` on run each program as ``chunks`` chunks of about
    ``blocks / chunks`` blocks, after every whole program, so that the short chunks take
    the places the last whole wave leaves idle (their partial sums are added afterwards).

    At 16 heads of 128 dense columns on 132 SMs, 2,048 programs make 15.5 waves and the
    16th half idle: three chunks of the last group's columns end the grid at ~15.7 waves.

    Every split is simulated (each program started in grid order on the first free place;
    a program costs ``overhead`` blocks beside its own, its start and its stores) among
    ``chunks`` of 2 to ``max_chunks`` with at least ``min_chunk_blocks`` blocks each, and
    ``fill_from`` leaving at most two waves of programs to chunk. The fastest is taken if
    it ends at least ``min_gain`` earlier than the grid without chunks; otherwise
    ``(groups, 1)``, no chunks. With ``shared`` each SM runs two programs at once
    (:func:`_makespan_shared`: ``hopper``'s D=64 forward), and a wave is two a place."""
    none = (groups, 1)
    if groups < 1 or programs < 1 or slots < 1:
        return none
    makespan = _makespan_shared if shared else _makespan
    whole_len = blocks + overhead
    best, best_end = none, makespan(groups * programs, 0, whole_len, 0.0, slots)
    plain_end = best_end
    wave = 2 * slots if shared else slots
    lowest = max(0, groups - -(-2 * wave // programs))
    for chunks in range(2, max_chunks + 1):
        if blocks // chunks < min_chunk_blocks:
            break
        chunk_len = -(-blocks // chunks) + overhead  # the longest chunk
        for fill_from in range(groups - 1, lowest - 1, -1):
            end = makespan(fill_from * programs, (groups - fill_from) * programs * chunks,
                           whole_len, chunk_len, slots)
            if end < best_end:
                best, best_end = (fill_from, chunks), end
    return best if best_end <= plain_end * (1 - min_gain) else none
