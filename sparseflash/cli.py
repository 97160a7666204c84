"""Command line: ``python -m sparseflash show PATTERN --seq-len N ...``.

``show`` compiles a pattern and prints its block picture, density, nnz and how nnz grows
with the number of blocks n. ``presets`` lists the named patterns.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from .layout import LayoutError, compile_layout, nnz_growth
from .layout import presets as preset_files
from .layout.primitives import REGISTRY


def _show(args: argparse.Namespace) -> int:
    layout = compile_layout(args.pattern, args.seq_len, block=args.block,
                            kv_seq_len=args.kv_seq_len, num_heads=args.heads)
    print(layout)
    h, nq, nk = layout.shape
    full = layout.full_keys.numel()
    print(f"blocks: {h} head(s) x {nq} x {nk}; nnz = {layout.nnz} "
          f"({full} full, {layout.nnz - full} partial); density = {layout.density:.2%}")
    if not args.no_growth:
        # The fit compiles the pattern on n = 16 ... 2048 blocks; a symbolic argument may be
        # out of range for some of those n although it is fine for this sequence length.
        try:
            growth = str(nnz_growth(args.pattern, args.heads))
        except LayoutError as error:
            growth = f"not defined for every n ({error.reason})"
        print(f"nnz growth in n (blocks per side): {growth}")
    if args.png:
        layout.save_png(args.png)
        print(f"wrote {args.png}")
    return 0


def _presets(args: argparse.Namespace) -> int:
    for name, path in preset_files.available().items():
        body = [line for line in path.read_text().splitlines()
                if line.strip() and not line.lstrip().startswith("#")]
        print(f"{name:28s} {' '.join(body)}")
    print("\nprimitives: " + ", ".join(REGISTRY))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m sparseflash",
                                     description="Block-sparse FlashAttention tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="draw a pattern's block mask and report its density")
    show.add_argument("pattern", help='e.g. "local(2) | global(1) | butterfly"')
    show.add_argument("--seq-len", type=int, required=True, help="query tokens N")
    show.add_argument("--kv-seq-len", type=int, default=None, help="key tokens (default N)")
    show.add_argument("--block", type=int, default=128, help="block size (power of two >= 16)")
    show.add_argument("--heads", type=int, default=None, help="number of heads (per_head)")
    show.add_argument("--png", default=None, help="also save a PNG picture here")
    show.add_argument("--no-growth", action="store_true", help="skip the nnz growth fit")
    show.set_defaults(run=_show)
    listing = sub.add_parser("presets", help="list preset patterns and primitives")
    listing.set_defaults(run=_presets)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except LayoutError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
