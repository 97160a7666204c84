"""Pictures of a layout: ASCII for the terminal, PNG through matplotlib."""

from __future__ import annotations

from typing import Optional

import torch

# ASCII cells: one per block when the grid is small, else shades of the on-fraction of the
# blocks a cell covers.
FULL, PARTIAL, OFF = "█", "▒", "·"
SHADES = " ░▒▓█"
MAX_CELLS = 64


def _cells(codes: torch.Tensor) -> list:
    """codes (nq, nk) int8 (see Layout.block_codes) -> one character per block."""
    chars = {3: FULL, -1: OFF}
    return ["".join(chars.get(int(c), PARTIAL) for c in row) for row in codes]


def _shaded(keys: torch.Tensor, nq: int, nk: int) -> list:
    """Sorted on-block keys ``i * nk + j`` of one head -> lines of shades, each cell covering
    a rectangle of blocks and showing the fraction of them that is on. O(nnz): the grid is
    never materialised."""
    rows, cols = min(nq, MAX_CELLS // 2), min(nk, MAX_CELLS)
    row_of = torch.arange(nq) * rows // nq   # block row -> cell row
    col_of = torch.arange(nk) * cols // nk
    area = torch.outer(torch.bincount(row_of, minlength=rows),
                       torch.bincount(col_of, minlength=cols)).double()
    cell = row_of[keys // nk] * cols + col_of[keys % nk]
    on = torch.bincount(cell, minlength=rows * cols).view(rows, cols).double()
    levels = torch.ceil(on / area * (len(SHADES) - 1)).long()
    return ["".join(SHADES[int(v)] for v in row) for row in levels]


def ascii_picture(layout, max_heads: int = 4) -> str:
    """``Layout`` header line, then the block grid of the first heads."""
    lines = [repr(layout)]
    nq, nk = layout.num_q_blocks, layout.num_kv_blocks
    small = nq <= MAX_CELLS and nk <= MAX_CELLS
    if small:
        codes = layout.block_codes()
    else:
        keys = torch.sort(torch.cat([layout.full_keys, layout.partial_keys])).values
    legend = (f"{FULL} full  {PARTIAL} partial (element mask)  {OFF} off" if small else
              f"each cell covers several blocks; shade = fraction on ('{SHADES[1]}' > 0 ... "
              f"'{SHADES[-1]}' all)")
    for h in range(min(layout.num_heads, max_heads)):
        if layout.num_heads > 1:
            lines.append(f"head {h}:")
        if small:
            lines.extend(_cells(codes[h]))
        else:
            lo, hi = torch.searchsorted(keys, torch.tensor([h * nq * nk, (h + 1) * nq * nk]))
            lines.extend(_shaded(keys[lo:hi] - h * nq * nk, nq, nk))
    if layout.num_heads > max_heads:
        lines.append(f"... {layout.num_heads - max_heads} more heads")
    lines.append(legend)
    return "\n".join(lines)


def save_png(layout, path, head: Optional[int] = None) -> None:
    """One panel per head (or only ``head``): full blocks dark, partial blocks mid-grey."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("save_png needs matplotlib: pip install 'sparseflash[viz]'") from exc
    codes = layout.block_codes().float()
    image = torch.where(codes == 3, 1.0, torch.where(codes >= 0, 0.55, 0.0))
    heads = range(layout.num_heads) if head is None else [head]
    heads = list(heads)[:8]
    fig, axes = plt.subplots(1, len(heads), figsize=(4 * len(heads), 4), squeeze=False)
    for ax, h in zip(axes[0], heads):
        ax.imshow(image[h].numpy(), cmap="Greys", vmin=0, vmax=1, interpolation="nearest")
        ax.set_title(f"head {h}" if layout.num_heads > 1 else "all heads")
        ax.set_xlabel("key block j")
        ax.set_ylabel("query block i")
    title = layout.pattern or "block mask"
    fig.suptitle(f"{title}   (block {layout.block}, density {layout.density:.1%})")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
