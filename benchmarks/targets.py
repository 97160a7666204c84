"""The speed targets, checked against recorded results of ``benchmarks.attention``.

    python -m benchmarks.targets benchmarks/results/NVIDIA-H200-attention-cudagraph.json \\
        --note "s31 call 2" --note "s32 call 4"

Reads the run records of one GPU (those whose ``note`` contains any ``--note``; the newest
measurement of each point wins, as ``benchmarks.plots`` reads them) and prints, for each
timer they hold (``events``: ``do_bench``; ``cudagraph``: replayed CUDA graphs):

* the README's table of the peers (:func:`peer_table`): per head dim and pattern,
  sparseflash's TFLOP/s in each mode beside FlexAttention's and their ratio, and cuDNN's
  where it ran (dense and causal);
* the README's table of shares (:func:`readme_table`): per pattern (densest first),
  sparseflash's TFLOP/s at each head dim and mode, with its share of the dense figure and
  its ratio to FlexAttention's;
* in both, a figure whose wall time is over 1.1x its kernels' summed time (``kernel_ms``)
  and under 1.25 ms is starred, as set by the host rather than the kernels
  (``plots.host_bound``);
* cuDNN's dense and causal figures and their ratios to Flex, and the backward by
  difference (fwd+bwd less fwd) against cuDNN's;
* each target the rows can be checked against, and the rows that miss it: dense at
  cuDNN's speed at D=64 and 85% of it at D=128 (:data:`DENSE_SHARE_OF_CUDNN`), 90% of the
  dense TFLOP/s for every other pattern (:data:`SPARSE_EFFICIENCY`), and 1.8x Flex at D=64,
  1.4x at D=128, 2x for random+global (:func:`flex_target`); a target whose peer has
  no row for some of sparseflash's says so (:func:`coverage`) rather than call them met.

Every ratio and share the README quotes from a table comes from here.
"""

from __future__ import annotations

import argparse
import sys
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from benchmarks import plots

#: sparseflash's dense TFLOP/s as a share of cuDNN's that the targets ask, by head dim.
DENSE_SHARE_OF_CUDNN = {64: 1.0, 128: 0.85}
#: A pattern's TFLOP/s as a share of sparseflash's dense figure that the targets ask.
SPARSE_EFFICIENCY = 0.9
#: The pattern whose Flex ratio target is 2x.
RANDOM_GLOBAL = "local(1) | global(1) | random(2)"


def flex_target(pattern: str, head_dim: int) -> float:
    """The ratio to FlexAttention the targets ask of ``pattern`` at ``head_dim``."""
    if pattern == RANDOM_GLOBAL:
        return 2.0
    return 1.8 if head_dim <= 64 else 1.4


def select(records: Sequence[Dict], note=None) -> List[Dict]:
    """The newest rows of the records whose note contains ``note`` (a string, or any of a
    sequence of them; all records without one)."""
    if note is not None:
        notes = [note] if isinstance(note, str) else list(note)
        records = [r for r in records if any(n in (r.get("note") or "") for n in notes)]
    return plots.newest_rows(records)


class Table:
    """Rows of one GPU and timer, looked up by (method, pattern, D, mode)."""

    def __init__(self, rows: Iterable[Dict]):
        self.rows = {(r["method"], r["pattern"], r["D"], r["mode"]): r for r in rows
                     if r.get("tflops")}
        self.head_dims = sorted({key[2] for key in self.rows})
        modes = {key[3] for key in self.rows}
        self.modes = [m for m in ("fwd", "bwd", "fwd+bwd") if m in modes]
        sf = [r for (method, *_), r in self.rows.items() if method == "sparseflash"]
        density = {r["pattern"]: r["density"] for r in sf}
        self.patterns = sorted(density, key=lambda p: (-density[p], p))
        self.density = density

    def get(self, method: str, pattern: str, d: int, mode: str) -> Optional[Dict]:
        return self.rows.get((method, pattern, d, mode))

    def share(self, pattern: str, d: int, mode: str) -> Optional[float]:
        """sparseflash's TFLOP/s on ``pattern`` as a share of its dense figure."""
        row, dense = self.get("sparseflash", pattern, d, mode), self.get(
            "sparseflash", "dense", d, mode)
        return row["tflops"] / dense["tflops"] if row and dense else None

    def ratio(self, pattern: str, d: int, mode: str, peer: str = "flex",
              method: str = "sparseflash") -> Optional[float]:
        """``method``'s TFLOP/s over ``peer``'s."""
        row, other = self.get(method, pattern, d, mode), self.get(peer, pattern, d, mode)
        return row["tflops"] / other["tflops"] if row and other else None

    def host_bound(self, pattern: str, d: int, mode: str) -> bool:
        row = self.get("sparseflash", pattern, d, mode)
        return bool(row) and plots.host_bound(row)


def _pattern_cell(pattern: str, density: float) -> str:
    return f"`{pattern.replace('|', chr(92) + '|')}` ({density:.1%})"


def peer_table(table: Table) -> str:
    """Markdown: a row per head dim and pattern, for each mode sparseflash's TFLOP/s,
    Flex's and their ratio, then cuDNN's figures in the modes' order where it ran; a star
    where the host set sparseflash's time."""
    header = (["pattern (density)", "D"]
              + [cell for m in table.modes for cell in (f"{m}: sparseflash", "Flex", "ratio")]
              + ["cuDNN " + " / ".join(table.modes)])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for d in table.head_dims:
        for pattern in table.patterns:
            if not any(table.get("sparseflash", pattern, d, m) for m in table.modes):
                continue
            cells = [_pattern_cell(pattern, table.density[pattern]), str(d)]
            for mode in table.modes:
                own, flex = (table.get(method, pattern, d, mode)
                             for method in ("sparseflash", "flex"))
                star = "*" if table.host_bound(pattern, d, mode) else ""
                ratio = table.ratio(pattern, d, mode)
                cells += [f"{own['tflops']:.0f}{star}" if own else "",
                          f"{flex['tflops']:.0f}" if flex else "",
                          f"{ratio:.2f}x{star}" if ratio else ""]
            cudnn = [table.get("sdpa-cudnn", pattern, d, m) for m in table.modes]
            cells.append(" / ".join(f"{r['tflops']:.0f}" for r in cudnn if r))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def readme_table(table: Table) -> str:
    """Markdown: a row per pattern, a column per (D, mode): TFLOP/s (share of dense,
    ratio to Flex), a star where the host set the time."""
    columns = [(d, m) for d in table.head_dims for m in table.modes]
    lines = ["| pattern (density) | " + " | ".join(f"D={d} {m}" for d, m in columns) + " |",
             "|---|" + "---|" * len(columns)]
    for pattern in table.patterns:
        cells = []
        for d, mode in columns:
            row = table.get("sparseflash", pattern, d, mode)
            if row is None:
                cells.append("")
                continue
            star = "*" if table.host_bound(pattern, d, mode) else ""
            notes = []
            share = table.share(pattern, d, mode)
            if pattern != "dense" and share is not None:
                notes.append(f"{share:.0%}")
            ratio = table.ratio(pattern, d, mode)
            if ratio is not None:
                notes.append(f"{ratio:.2f}x")
            cells.append(f"{row['tflops']:.0f}{star}" + (f" ({', '.join(notes)})" if notes
                                                         else ""))
        lines.append(f"| {_pattern_cell(pattern, table.density[pattern])} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def cudnn_lines(table: Table) -> List[str]:
    """cuDNN's dense and causal figures, their ratios to Flex, and the backward by
    difference against sparseflash's."""
    out = []
    for d in table.head_dims:
        for pattern in ("dense", "causal"):
            cells = []
            for mode in table.modes:
                row = table.get("sdpa-cudnn", pattern, d, mode)
                if row is None:
                    continue
                ratio = table.ratio(pattern, d, mode, method="sdpa-cudnn")
                own = table.ratio(pattern, d, mode, peer="sdpa-cudnn")
                cells.append(f"{mode} {row['tflops']:.0f} TFLOP/s"
                             + (f" ({ratio:.2f}x Flex)" if ratio else "")
                             + (f", sparseflash at {own:.1%} of it" if own else ""))
            if cells:
                out.append(f"cuDNN D={d} {pattern}: " + "; ".join(cells))
        bwd = {}
        for method in ("sparseflash", "sdpa-cudnn"):
            fwd, both = (table.get(method, "dense", d, m) for m in ("fwd", "fwd+bwd"))
            if fwd and both:
                bwd[method] = both["ms"] - fwd["ms"]
        if len(bwd) == 2:
            out.append(f"dense backward by difference, D={d}: sparseflash "
                       f"{bwd['sparseflash']:.2f} ms, cuDNN {bwd['sdpa-cudnn']:.2f} ms "
                       f"({bwd['sparseflash'] / bwd['sdpa-cudnn'] - 1:+.1%})")
    return out


#: The peer whose rows each target compares sparseflash's against.
TARGET_PEERS = {"dense against cuDNN": "cuDNN", "sparse efficiency": "sparseflash's dense",
                "ratio to Flex": "Flex"}


def _checks(table: Table) -> Iterator[Tuple[str, str, int, str, Optional[float], float]]:
    """(target, pattern, D, mode, value, mark) for every sparseflash row a target asks
    about; ``value`` is None where the peer's row is missing."""
    for d in table.head_dims:
        for mode in table.modes:
            if table.get("sparseflash", "dense", d, mode):
                yield ("dense against cuDNN", "dense", d, mode,
                       table.ratio("dense", d, mode, peer="sdpa-cudnn"),
                       DENSE_SHARE_OF_CUDNN.get(d, 0.85))
            for pattern in table.patterns:
                if not table.get("sparseflash", pattern, d, mode):
                    continue
                if pattern != "dense":
                    yield ("sparse efficiency", pattern, d, mode,
                           table.share(pattern, d, mode), SPARSE_EFFICIENCY)
                yield ("ratio to Flex", pattern, d, mode, table.ratio(pattern, d, mode),
                       flex_target(pattern, d))


def misses(table: Table) -> Dict[str, List[Tuple[str, int, str, float, float]]]:
    """{target: [(pattern, D, mode, value, mark), ...]} of the rows that miss each target,
    each with the mark it misses."""
    found: Dict[str, List[Tuple[str, int, str, float, float]]] = {
        target: [] for target in TARGET_PEERS}
    for target, pattern, d, mode, value, mark in _checks(table):
        if value is not None and value < mark:
            found[target].append((pattern, d, mode, value, mark))
    return found


def coverage(table: Table) -> Dict[str, Tuple[int, int]]:
    """{target: (rows compared, rows asked about)}: a target is met only on the rows its
    peer ran for (Flex ran out of memory at 64K on an 80 GB H100 in session 58, and a
    record may hold no peer at all)."""
    counts = {target: [0, 0] for target in TARGET_PEERS}
    for target, *_, value, _mark in _checks(table):
        counts[target][0] += value is not None
        counts[target][1] += 1
    return {target: (compared, asked) for target, (compared, asked) in counts.items()}


def shown_under(value: float, target: float, digits: int, scale: float = 1.0) -> str:
    """``value * scale`` with ``digits`` decimals, or as many more as it takes to show it
    under ``target * scale`` (a ratio of 1.797 against a mark of 1.8 is printed 1.797,
    not 1.80), at most six."""
    while digits < 6 and round(value * scale, digits) >= target * scale:
        digits += 1
    return f"{value * scale:.{digits}f}"


def report(rows: Sequence[Dict]) -> str:
    """Everything above for each GPU and timer among ``rows``."""
    parts = []
    groups: Dict[tuple, List[Dict]] = {}
    for row in rows:
        groups.setdefault((row.get("gpu"), row.get("timer", "events"), row["N"],
                           row["dtype"]), []).append(row)
    for (gpu, timer, n, dtype), group in sorted(groups.items(), key=lambda kv: str(kv[0])):
        table = Table(group)
        if not table.patterns:
            continue
        parts += [f"## {gpu}, timer {timer}, N = {n}, {dtype}", "",
                  "TFLOP/s against the peers; * set by the host", "", peer_table(table), "",
                  "TFLOP/s (share of sparseflash's dense figure, ratio to Flex); "
                  "* set by the host", "", readme_table(table), ""]
        parts += [f"- {line}" for line in cudnn_lines(table)]
        compared = coverage(table)
        for target, rows_missing in misses(table).items():
            done, asked = compared[target]
            if not asked:
                parts.append(f"- not checked, {target}: no sparseflash rows it asks about")
                continue
            if not done:
                parts.append(f"- not checked, {target}: no {TARGET_PEERS[target]} rows")
                continue
            if rows_missing:
                # Ratios to Flex as such, shares as percentages, each with the decimals
                # it takes to read under its mark.
                listed = ", ".join(
                    f"`{p}` D={d} {m} "
                    + (shown_under(v, mark, 2) + "x" if target == "ratio to Flex"
                       else shown_under(v, mark, 1, 100) + "%")
                    + ("*" if table.host_bound(p, d, m) else "")
                    for p, d, m, v, mark in rows_missing)
                parts.append(f"- missed, {target}: {listed}")
            else:
                parts.append(f"- met, {target}: every row")
            if done < asked:
                parts[-1] += (f" ({asked - done} of {asked} rows not compared: no "
                              f"{TARGET_PEERS[target]} row)")
        parts.append("")
    return "\n".join(parts)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="+", help="JSON files of benchmarks.attention")
    p.add_argument("--note", action="append", default=None,
                   help="only the records whose note contains this text (repeated: any of "
                        "them; where several rows measure one thing, the newest counts)")
    args = p.parse_args(argv)
    rows = select(plots.load_records(args.results), args.note)
    if not rows:
        sys.exit(f"no rows in {', '.join(args.results)}"
                 + (f" whose note contains any of {args.note!r}" if args.note else ""))
    print(report(rows))


if __name__ == "__main__":
    main()
