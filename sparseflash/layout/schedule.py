"""Work schedules: which kernel program takes which stretch of which layout row.

A kernel that gives each layout row to one program finishes when its longest row does. With
``global(1)`` in a pattern the global row lists every key block while the others list a
handful, so one program walks 128 blocks while the GPU idles (the "tail"). The schedule
fixes both halves of that:

* rows much longer than the average are *split* into chunks of near-equal length, each its
  own program; the forward merges their partial softmax results (each chunk's normalised
  output and log-sum-exp), gradient kernels add their partial sums;
* programs are ordered *longest first*, so the long ones start while short ones fill in.

Everything here is CPU integer bookkeeping, built once per layout.
"""

from __future__ import annotations

from dataclasses import dataclass

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
                   limit: int | None = None) -> Schedule:
    """Schedule for rows given as CSR offsets ``(R + 1,)`` of their full and partial lists.

    A row of ``n > limit`` blocks becomes ``ceil(n / limit)`` chunks over its full list then
    its partial list, taken as one sequence. Every row gets at least one entry, empty ones
    too: their program still writes zeros (forward) or zero gradients.
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
    order = torch.argsort(hi - lo, descending=True, stable=True)  # longest first
    return Schedule(entries[order].to(torch.int32), split_slots.to(torch.int32), split_rows,
                    num_slots)
