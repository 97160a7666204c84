"""Plots of the benchmark results: PNG files from the JSON the benchmark scripts write.

    python -m benchmarks.plots                # results/*-attention.json, *-attention-cudagraph.json
    python -m benchmarks.plots benchmarks/results/NVIDIA-H200-attention.json --out-dir /tmp/p
    python -m benchmarks.plots --paper                          # results/*-paper-e6.json

From ``benchmarks.attention`` results, per GPU and per timer (``<gpu>-...`` from rows timed
by CUDA events around calls, ``<gpu>-cudagraph-...`` from rows of ``--timer cudagraph``,
replayed CUDA graphs; one figure never mixes the two):

* ``<gpu>-speed-vs-n.png``: effective TFLOP/s against N, one line per method, one panel per
  (pattern, D, mode);
* ``<gpu>-speed-vs-density.png``: TFLOP/s against layout density for sparseflash (the full
  call and, where measured, the kernel alone) and FlexAttention, one panel per (D, mode), with
  sparseflash's own dense figure and 90% of it as reference lines;
* ``<gpu>-memory-vs-n.png``: peak memory against N, log-log, panels as the first.

With ``--paper``, from ``benchmarks.paper_e6`` results: ``<gpu>-paper-e6.png``, time against
N for fwd, bwd and fwd+bwd and memory against N, with the FlashAttention paper's A100 figures
(Appendix E.6) as dashed lines.

A results file is a list of run records (each with its ``rows``), appended newest last. When
several records hold the same measurement, the newest wins: records are ordered by their
``date`` where every record has one, else by position (files in the order given, records in
file order). matplotlib is an optional dependency (``pip install -e ".[viz]"``); it is
imported only when a figure is drawn.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from datetime import datetime
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

RESULTS = Path(__file__).parent / "results"
DEFAULT_OUT_DIR = RESULTS / "plots"

#: What identifies one measurement of benchmarks/attention.py.
MEASUREMENT_KEY = ("gpu", "method", "pattern", "N", "B", "H", "D", "dtype", "mode", "timer")
#: The methods drawn against density (those that can skip blocks).
DENSITY_METHODS = ("sparseflash", "sparseflash-kernel", "flex")
#: Wall time over kernel time beyond which a short call counts as set by the host. Short:
#: under 1.25 ms, the longest call the host has been seen to set (a D=128 random+global
#: fwd+bwd, 1.2 ms of wall on 0.94 of kernels, session 35). Longer calls are left out
#: because the profiler's kernel time is not the timer's there: the D=128 dense forward
#: (3.4 ms) runs 1.11x its ``kernel_ms`` even replayed from a CUDA graph.
HOST_BOUND_RATIO, HOST_BOUND_MS = 1.1, 1.25
HOST_BOUND_NOTE = ("hollow markers: calls the host sets (wall time under "
                   f"{HOST_BOUND_MS:g} ms and over {HOST_BOUND_RATIO:g}x the kernels' "
                   "summed time, kernel_ms)")

# One colour and marker per method, the same in every figure.
_STYLE = {
    "sparseflash": ("tab:blue", "o", "-"),
    # Its own colour: the speed-vs-density figure marks patterns, not methods, by shape.
    "sparseflash-kernel": ("tab:purple", "^", "--"),
    "sparseflash-butterfly": ("tab:cyan", "o", "-"),
    "flex": ("tab:orange", "s", "-"),
    "flex-butterfly": ("tab:olive", "s", "-"),
    "sdpa-cudnn": ("tab:green", "D", "-"),
    "sdpa-flash": ("tab:red", "v", "-"),
    "sdpa-efficient": ("tab:purple", "P", "-"),
    "sdpa-math": ("tab:brown", "X", "-"),
    "naive": ("tab:gray", "x", ":"),
}
_SPARE_COLOURS = ("tab:pink", "darkgoldenrod", "teal", "navy", "crimson")


def style(method: str) -> Tuple[str, str, str]:
    """(colour, marker, linestyle) for a method; unknown methods get a stable spare colour."""
    if method in _STYLE:
        return _STYLE[method]
    return (_SPARE_COLOURS[sum(map(ord, method)) % len(_SPARE_COLOURS)], "o", "-")


# ----------------------------------------------------------------------------- data
def load_records(paths: Iterable) -> List[Dict]:
    """Every run record of the given JSON files, tagged with where it came from."""
    records = []
    for file_index, path in enumerate(paths):
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such results file")
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not valid JSON ({exc})") from None
        if isinstance(data, dict) and "rows" in data:  # a single record
            data = [data]
        if not isinstance(data, list) or not all(
                isinstance(r, dict) and isinstance(r.get("rows"), list) for r in data):
            raise ValueError(f"{path}: expected a list of run records, each with a 'rows' list "
                             "(what benchmarks/attention.py and benchmarks/paper_e6.py write)")
        for i, record in enumerate(data):
            records.append(dict(record, _source=str(path), _position=(file_index, i)))
    return records


def _date(record: Dict) -> Optional[datetime]:
    try:
        return datetime.strptime(record["date"], "%Y-%m-%dT%H:%M:%S%z")
    except (KeyError, TypeError, ValueError):
        return None


def order_newest_last(records: Sequence[Dict]) -> List[Dict]:
    """Records oldest first: by date when every record has one, else by position."""
    dates = [_date(r) for r in records]
    if records and all(d is not None for d in dates):
        ranked = sorted(zip(dates, range(len(records))), key=lambda t: (t[0], t[1]))
        return [records[i] for _, i in ranked]
    return sorted(records, key=lambda r: r.get("_position", (0, 0)))


def newest_rows(records: Sequence[Dict], key: Sequence[str] = MEASUREMENT_KEY) -> List[Dict]:
    """One set of rows per ``key``: the rows of the newest record that has that key.

    Rows inherit the record's ``gpu`` when they have none, and rows from before
    ``--timer`` existed the timer they were timed by (``events``), so that a newer
    measurement of the same point replaces theirs. Within one record, a later row
    with the same key and mode replaces an earlier one. With a key that leaves out ``mode``
    (as benchmarks/paper_e6 uses), a newer record replaces all modes of a measurement at
    once, so an old success never hides a newer failure.
    """
    winners: Dict[tuple, Dict] = {}
    for record in order_newest_last(records):
        groups: Dict[tuple, Dict] = {}
        for row in record["rows"]:
            row = dict(row)
            row.setdefault("gpu", record.get("gpu"))
            row.setdefault("timer", "events")
            group = groups.setdefault(tuple(row.get(f) for f in key), {})
            group[row.get("mode")] = row
        winners.update(groups)
    return [row for group in winners.values() for row in group.values()]


def rows_by_timer(rows: Sequence[Dict]) -> Dict[str, List[Dict]]:
    """{timer: rows} for the timers that have rows: ``events`` (CUDA events around calls,
    ``benchmarks.attention``'s default; rows from before ``--timer`` existed have none)
    and ``cudagraph`` (replayed CUDA graphs, which leave out the host's launches). The
    figures of one are not comparable with the other's, so each gets figures of its own."""
    out: Dict[str, List[Dict]] = {}
    for r in rows:
        out.setdefault(r.get("timer", "events"), []).append(r)
    return out


#: What a figure's file name and title add for rows of a timer other than events.
TIMER_TAGS = {"events": ("", ""), "cudagraph": ("-cudagraph", ", replayed from CUDA graphs")}


def timer_tags(timer: str) -> Tuple[str, str]:
    """(file name tag, title suffix) of a timer's figures (:data:`TIMER_TAGS`; a timer
    not listed there is named as it is)."""
    return TIMER_TAGS.get(timer, (f"-{timer}", f", timer {timer}"))


def host_bound(row: Dict) -> bool:
    """Whether a row's figure is set by the host rather than its kernels: a short call
    (under ``HOST_BOUND_MS``) whose wall time is over ``HOST_BOUND_RATIO`` times its
    kernels' summed time (``kernel_ms``, which ``benchmarks.attention`` records for
    sparseflash's full calls)."""
    kernel = row.get("kernel_ms")
    ms = row.get("ms")
    return bool(kernel) and isinstance(ms, (int, float)) and HOST_BOUND_MS > ms > \
        HOST_BOUND_RATIO * kernel


def host_bound_points(rows: Iterable[Dict]) -> set:
    """{(pattern, D, mode, dtype, method, N)} of the rows :func:`host_bound` picks."""
    return {(r["pattern"], r["D"], r["mode"], r["dtype"], r["method"], r["N"])
            for r in rows if host_bound(r)}


def _ok(row: Dict, field: str) -> bool:
    return row.get("status", "ok") == "ok" and isinstance(row.get(field), (int, float))


def _pattern_order(rows: Iterable[Dict]) -> List[str]:
    """Dense first, then by density, then by name."""
    density = {}
    for r in rows:
        density.setdefault(r["pattern"], r.get("density", 1.0))
    return sorted(density, key=lambda p: (p.strip() != "dense", -density[p], p))


def series_vs_n(rows: Iterable[Dict], field: str) -> Dict[tuple, Dict[str, List[tuple]]]:
    """{(pattern, D, mode, dtype): {method: [(N, value), ...] sorted by N}} for rows that
    have a numeric ``field``."""
    panels: Dict[tuple, Dict[str, Dict[int, float]]] = {}
    for r in rows:
        if not _ok(r, field):
            continue
        panel = panels.setdefault((r["pattern"], r["D"], r["mode"], r["dtype"]), {})
        panel.setdefault(r["method"], {})[r["N"]] = r[field]
    return {k: {m: sorted(pts.items()) for m, pts in v.items()} for k, v in panels.items()}


def series_vs_density(rows: Iterable[Dict], methods: Sequence[str] = DENSITY_METHODS
                      ) -> Dict[tuple, Dict]:
    """{(D, mode, dtype): {"N": N, "dense": sparseflash dense TFLOP/s or None,
    "series": {method: [(density, tflops, pattern), ...] sorted by density}}}.

    Each panel uses one N (TFLOP/s depends on N, so mixing them would mislead): where
    sparseflash ran its dense layout (the panel's reference), and of those the N with the
    most sparseflash patterns, the largest on a tie. (The largest N alone picked the 1M
    token runs, two patterns below 0.1% density and no dense row.)
    """
    rows = [r for r in rows if _ok(r, "tflops")]
    out = {}
    for panel in sorted({(r["D"], r["mode"], r["dtype"]) for r in rows}):
        here = [r for r in rows if (r["D"], r["mode"], r["dtype"]) == panel]
        sf = [r for r in here if r["method"] == "sparseflash"]
        if not sf:
            continue

        def preference(n):
            at = [r for r in sf if r["N"] == n]
            has_dense = any(r["pattern"].strip() == "dense" for r in at)
            return has_dense, len({r["pattern"] for r in at}), n

        N = max({r["N"] for r in sf}, key=preference)
        at_n = [r for r in here if r["N"] == N]
        series = {}
        for m in methods:
            pts = sorted((r["density"], r["tflops"], r["pattern"]) for r in at_n
                         if r["method"] == m)
            if pts:
                series[m] = pts
        dense = [r["tflops"] for r in at_n
                 if r["method"] == "sparseflash" and r["pattern"].strip() == "dense"]
        out[panel] = dict(N=N, dense=dense[0] if dense else None, series=series)
    return out


def _gpu_slug(gpu: Optional[str]) -> str:
    return (gpu or "unknown-gpu").replace(" ", "-").replace("/", "-")


def _fmt_n(n: int) -> str:
    return f"{n // 1024}K" if n >= 1024 and n % 1024 == 0 else str(n)


# ----------------------------------------------------------------------------- drawing
def _plt():
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("benchmarks.plots needs matplotlib: pip install -e \".[viz]\"") from None
    matplotlib.use("Agg")  # files only; never needs a display
    import matplotlib.pyplot as plt
    return plt


def _n_axis(ax, xs: Sequence[int]) -> None:
    """log2 N axis with a tick at every measured N; a lone N is centred with some room."""
    ax.set_xscale("log", base=2)
    xs = sorted(set(xs))
    if not xs:
        return
    ax.set_xticks(xs)
    ax.set_xticklabels([_fmt_n(x) for x in xs], fontsize=8)
    ax.minorticks_off()
    if len(xs) == 1:
        ax.set_xlim(xs[0] / 2, xs[0] * 2)


def _draw_lines(ax, series: Dict[str, List[tuple]]) -> None:
    """One line with markers per method (a lone point still shows as its marker)."""
    for method, pts in sorted(series.items()):
        colour, marker, line = style(method)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, linestyle=line,
                color=colour, label=method, markersize=6, linewidth=1.5)


def _draw_hollow(ax, method: str, x: float, y: float, size: int,
                 marker: Optional[str] = None) -> None:
    """``method``'s marker (or ``marker``) at (x, y), filled white: a call the host sets
    (:func:`host_bound`), drawn over the filled one."""
    colour, own_marker, _ = style(method)
    marker = marker or own_marker
    ax.plot([x], [y], marker=marker, linestyle="none", color=colour, markerfacecolor="white",
            markersize=size, zorder=3)


def _label_points(ax, points: List[tuple], log_y: bool, *, log_x: bool = True) -> None:
    """Write a label right of each point, nudged up past the labels already placed near its
    x (within a factor 2 on a log axis) so that none overprints another, and the y axis
    raised to hold the highest. points: (x, y, colour, text)."""
    import math
    lo, hi = ax.get_ylim()
    to_t = (lambda y: math.log10(y)) if log_y else (lambda y: y)
    from_t = (lambda t: 10 ** t) if log_y else (lambda t: t)
    gap = 0.075 * (to_t(hi) - to_t(lo))
    near = ((lambda a, b: abs(math.log10(a / b)) < 0.3) if log_x
            else (lambda a, b: True))
    placed: List[tuple] = []  # (x, t) of the labels written so far
    for x, y, colour, text in sorted(points, key=lambda p: p[1]):
        t = to_t(y)
        for px, pt in sorted(placed, key=lambda p: p[1]):
            if near(x, px) and abs(t - pt) < gap:
                t = pt + gap
        placed.append((x, t))
        ax.annotate(text, xy=(x, y), xytext=(x * 1.12 if log_x else x, from_t(t)),
                    fontsize=7, color=colour, va="center")
    if placed and max(t for _, t in placed) + gap / 2 > to_t(hi):
        ax.set_ylim(lo, from_t(max(t for _, t in placed) + gap / 2))


def _log_y_axis(ax, values: Sequence[float]) -> None:
    """log y with plain-number labels, spanning at least a factor of 4 so that a narrow
    range does not turn into unreadable 2.898x10^2 ticks."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.set_yscale("log")
    lo, hi = min(values), max(values)
    if hi / lo < 4:
        mid = (lo * hi) ** 0.5
        lo, hi = mid / 2, mid * 2
    ax.set_ylim(lo / 1.3, hi * 1.3)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _grid_figure(plt, n_rows: int, n_cols: int, title: str):
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(3.9 * n_cols + 0.6, 3.0 * n_rows + 1.3),
                             squeeze=False)
    fig.suptitle(title, fontsize=12, y=0.995)
    return fig, axes


def _finish(fig, axes, path: Path, note: Optional[str] = None) -> Path:
    """Shared legend under the title, the note at the bottom, save, close."""
    import matplotlib.pyplot as plt
    handles, labels = {}, []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    height, width = fig.get_figheight(), fig.get_figwidth()
    longest = max((len(lab) for lab in labels), default=0)
    # Columns that fit the figure's width at ~0.075 in per character plus the marker.
    ncol = max(1, min(len(labels), int(width / (0.075 * longest + 0.7)))) if labels else 1
    legend_lines = -(-len(labels) // ncol) if labels else 0
    top = 1 - (0.45 + 0.22 * legend_lines) / height
    if labels:
        fig.legend([handles[lab] for lab in labels], labels, loc="upper center",
                   bbox_to_anchor=(0.5, 1 - 0.3 / height), ncol=ncol, fontsize=9,
                   frameon=False)
    note_lines = 1
    if note:
        # Wrapped to the figure's width (~17 characters an inch at 7 points).
        note = textwrap.fill(note, width=max(40, int(17 * width)))
        note_lines = note.count("\n") + 1
        fig.text(0.01, 0.004, note, fontsize=7, color="dimgray", va="bottom")
    fig.tight_layout(rect=(0, (0.25 + 0.12 * (note_lines - 1)) / height, 1, top))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _density_label(values: Optional[List[float]]) -> str:
    """`` (5.4%)`` for one density, `` (0.1%-59.4%)`` for a range, empty for none."""
    if not values:
        return ""
    lo, hi = min(values), max(values)
    return f" ({lo:.1%})" if f"{lo:.1%}" == f"{hi:.1%}" else f" ({lo:.1%}-{hi:.1%})"


def swept_patterns(panels: Dict[tuple, Dict]) -> set:
    """The patterns of ``panels`` (:func:`series_vs_n`) to draw against N: those measured at
    two or more N where any pattern is; a pattern measured at one N only (the
    sparse-efficiency rows) would add a column of single points, which the speed-vs-density
    plot shows. Every pattern where none was measured at more than one N."""
    ns: Dict[str, set] = {}
    for (pattern, *_), series in panels.items():
        ns.setdefault(pattern, set()).update(n for pts in series.values() for n, _ in pts)
    if all(len(v) < 2 for v in ns.values()):
        return set(ns)
    return {p for p, v in ns.items() if len(v) >= 2}


def _panels_by_pattern(plt, panels: Dict[tuple, Dict], rows: Sequence[Dict], title: str,
                       ylabel: str, path: Path, *, log_y: bool, fmt: str,
                       note: Optional[str] = None, hollow: frozenset = frozenset()) -> Path:
    """Grid: one column per pattern (dense first, then by density), one row per
    (dtype, D, mode); only the patterns of :func:`swept_patterns`. Points in ``hollow``
    (:func:`host_bound_points`) are drawn with hollow markers."""
    swept = swept_patterns(panels)
    patterns = [p for p in _pattern_order(rows) if p in swept]
    # A sparse pattern's density falls with N: title each column with its range.
    densities: Dict[str, List[float]] = {}
    for r in rows:
        if "density" in r:
            densities.setdefault(r["pattern"], []).append(r["density"])
    row_keys = sorted({(k[3], k[1], k[2]) for k in panels})  # (dtype, D, mode)
    fig, axes = _grid_figure(plt, len(row_keys), len(patterns), title)
    for i, (dtype, D, mode) in enumerate(row_keys):
        for j, pattern in enumerate(patterns):
            ax = axes[i][j]
            series = panels.get((pattern, D, mode, dtype))
            ax.set_title(f"{pattern}{_density_label(densities.get(pattern))}"
                         f"\nD={D}, {mode}, {dtype}", fontsize=8)
            if not series:
                ax.text(0.5, 0.5, "not measured", ha="center", va="center",
                        transform=ax.transAxes, color="gray")
                ax.set_xticks([])
                ax.set_yticks([])
                continue
            xs = [x for pts in series.values() for x, _ in pts]
            ys = [y for pts in series.values() for _, y in pts]
            _draw_lines(ax, series)
            for method, pts in series.items():
                for x, y in pts:
                    if (pattern, D, mode, dtype, method, x) in hollow:
                        _draw_hollow(ax, method, x, y, 6)
            _n_axis(ax, xs)
            if log_y:
                _log_y_axis(ax, ys)
            else:
                ax.set_ylim(0, max(ys) * 1.12)
            if len(set(xs)) == 1:  # one N: the values are the information; write them
                _label_points(ax, [(x, y, style(m)[0], fmt.format(y))
                                   for m, pts in series.items() for x, y in pts], log_y)
            ax.set_xlabel("sequence length N", fontsize=8)
            ax.set_ylabel(ylabel, fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(True, which="major", alpha=0.3)
    return _finish(fig, axes, path, note)


def _gpu_label(rows: Sequence[Dict]) -> str:
    """The GPU named in a title, and how its rows were timed where not by events."""
    return rows[0].get("gpu", "?") + timer_tags(rows[0].get("timer", "events"))[1]


def _gpu_and_single_n(rows: Sequence[Dict]) -> Tuple[str, str]:
    """The GPU (:func:`_gpu_label`) named in a title, and a note when the data hold one N
    only."""
    ns = sorted({r["N"] for r in rows})
    return (_gpu_label(rows), f" (only N = {ns[0]} in the data)" if len(ns) == 1 else "")


def plot_speed_vs_n(rows: Sequence[Dict], path: Path) -> Optional[Path]:
    panels = series_vs_n(rows, "tflops")
    if not panels:
        print(f"speed vs N: no rows with TFLOP/s figures; {path.name} not written")
        return None
    gpu, only = _gpu_and_single_n(rows)
    hollow = frozenset(host_bound_points(rows))
    note = ("effective TFLOP/s = 4*B*H*N^2*D*density / time (x3.5 fwd+bwd, x2.5 bwd), as "
            "in benchmarks/attention.py" + (f"; {HOST_BOUND_NOTE}" if hollow else ""))
    return _panels_by_pattern(_plt(), panels, rows, f"Effective TFLOP/s vs sequence length, {gpu}"
                              f"{only}", "effective TFLOP/s", path, log_y=False, fmt="{:.0f}",
                              note=note, hollow=hollow)


def plot_memory_vs_n(rows: Sequence[Dict], path: Path) -> Optional[Path]:
    panels = series_vs_n(rows, "peak_mb")
    if not panels:
        print(f"memory vs N: no rows with peak_mb; {path.name} not written")
        return None
    gpu, only = _gpu_and_single_n(rows)
    # Since its first recorded run benchmarks/attention.py measures one call of its own,
    # outside the timer (whose L2-flush buffer it would otherwise count).
    note = ("peak_mb as recorded by benchmarks/attention.py: the peak memory one call "
            "(fwd, or fwd and its backward) allocates above what was allocated before it")
    return _panels_by_pattern(_plt(), panels, rows, f"Peak GPU memory vs sequence length, {gpu}"
                              f"{only}", "peak memory (MiB)", path, log_y=True, fmt="{:.0f}",
                              note=note)


#: Markers of the patterns in the speed-vs-density figure, densest pattern first (a
#: figure with more patterns than markers reuses them in order).
PATTERN_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p", "H", "d")


def plot_speed_vs_density(rows: Sequence[Dict], path: Path) -> Optional[Path]:
    panels = series_vs_density(rows)
    if not panels:
        print(f"speed vs density: no sparseflash rows with TFLOP/s; {path.name} not written")
        return None
    plt = _plt()
    hollow = host_bound_points(rows)
    keys = sorted(panels)
    row_keys = sorted({(dtype, D) for D, _, dtype in keys})
    modes = sorted({mode for _, mode, _ in keys})
    gpu = _gpu_label(rows)
    fig, axes = _grid_figure(plt, len(row_keys), len(modes),
                             f"Effective TFLOP/s vs layout density, {gpu}")
    drawn = _pattern_order({"pattern": p, "density": d} for panel in panels.values()
                           for pts in panel["series"].values() for d, _, p in pts)
    markers = {p: PATTERN_MARKERS[i % len(PATTERN_MARKERS)] for i, p in enumerate(drawn)}
    for i, (dtype, D) in enumerate(row_keys):
        for j, mode in enumerate(modes):
            ax = axes[i][j]
            panel = panels.get((D, mode, dtype))
            if panel is None:
                ax.set_title(f"D={D}, {mode}, {dtype}", fontsize=9)
                ax.text(0.5, 0.5, "not measured", ha="center", va="center",
                        transform=ax.transAxes, color="gray")
                ax.set_xticks([])
                ax.set_yticks([])
                continue
            ax.set_title(f"D={D}, {mode}, {dtype}, N={panel['N']}", fontsize=9)
            for method, pts in panel["series"].items():
                colour = style(method)[0]
                # The method's colour in the shared legend; each point the pattern's marker.
                ax.plot([], [], marker="o", linestyle="none", color=colour, label=method)
                for density, tflops, p in pts:
                    x = 100 * density
                    ax.plot([x], [tflops], marker=markers[p], linestyle="none", color=colour,
                            markersize=7, alpha=0.9)
                    if (p, D, mode, dtype, method, panel["N"]) in hollow:
                        _draw_hollow(ax, method, x, tflops, 7, markers[p])
            if panel["dense"] is not None:
                ax.axhline(panel["dense"], color="tab:blue", linewidth=1, alpha=0.6,
                           label="sparseflash dense")
                ax.axhline(0.9 * panel["dense"], color="tab:blue", linewidth=1,
                           linestyle=":", label="90% of sparseflash dense")
            ax.set_xscale("log")
            ax.set_xlabel("density (% of blocks on)", fontsize=8)
            ax.set_ylabel("effective TFLOP/s", fontsize=8)
            ax.set_ylim(bottom=0)
            lowest = min(100 * d for pts in panel["series"].values() for d, _, _ in pts)
            left = min(2, lowest / 1.5)
            ticks = [t for t in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100) if t >= left]
            ax.set_xlim(left, 200)
            ax.set_xticks(ticks)
            ax.set_xticklabels([f"{t:g}" for t in ticks], fontsize=7)
            ax.minorticks_off()
            ax.tick_params(labelsize=7)
            ax.grid(True, alpha=0.3)
    # One grey marker a pattern in the shared legend (after the methods' colours), densest
    # first; the first panel holds them, _finish gathers every panel's labels once.
    for pattern in drawn:
        axes[0][0].plot([], [], marker=markers[pattern], linestyle="none", color="dimgray",
                        label=pattern)
    kernel_rows = any(r["method"] == "sparseflash-kernel" for r in rows)
    note = ("Colour: method; marker: pattern (points sharing a density are different "
            "patterns)." + (" sparseflash-kernel: the forward launcher alone, no per-call "
                           "Python work." if kernel_rows else "")
            + (f" {HOST_BOUND_NOTE[0].upper()}{HOST_BOUND_NOTE[1:]}." if hollow else ""))
    return _finish(fig, axes, path, note=note)


def plot_attention(rows: Sequence[Dict], out_dir: Path) -> List[Path]:
    """All three attention figures, one set per GPU and timer (:func:`rows_by_timer`);
    returns the files written."""
    written = []
    for timer, timed in sorted(rows_by_timer(rows).items()):
        tag = timer_tags(timer)[0]
        for gpu in sorted({r.get("gpu") or "?" for r in timed}):
            here = [r for r in timed if (r.get("gpu") or "?") == gpu]
            slug = _gpu_slug(gpu) + tag
            for fn, name in ((plot_speed_vs_n, "speed-vs-n"),
                             (plot_speed_vs_density, "speed-vs-density"),
                             (plot_memory_vs_n, "memory-vs-n")):
                path = fn(here, out_dir / f"{slug}-{name}.png")
                if path is not None:
                    written.append(path)
    return written


def paper_series(rows: Sequence[Dict]) -> Dict[str, Dict[str, List[tuple]]]:
    """{section: {label: [(N, value), ...]}} for sections fwd, bwd, fwd+bwd (ms) and memory
    (peak_total_mb, which counts the inputs as the paper's footprint does)."""
    from benchmarks.paper_e6 import MODES, _method_label
    out: Dict[str, Dict[str, Dict[int, float]]] = {s: {} for s in (*MODES, "memory")}
    for r in rows:
        if r.get("status", "ok") != "ok":
            continue
        label = _method_label(r["method"])
        if r.get("mode") in MODES and isinstance(r.get("ms"), (int, float)):
            out[r["mode"]].setdefault(label, {})[r["N"]] = r["ms"]
        if isinstance(r.get("peak_total_mb"), (int, float)):
            out["memory"].setdefault(label, {})[r["N"]] = r["peak_total_mb"]
    return {s: {m: sorted(p.items()) for m, p in v.items()} for s, v in out.items()}


def plot_paper(rows: Sequence[Dict], out_dir: Path) -> List[Path]:
    """Time (fwd, bwd, fwd+bwd) and memory against N, ours solid, the paper's A100 figures
    dashed; one figure per GPU."""
    from benchmarks.paper_e6 import PAPER_A100, PAPER_SEQ_LENS
    written = []
    paper_style = {"FlashAttention": ("black", "o"),
                   "Block-Sparse FlashAttention": ("dimgray", "^"),
                   "PyTorch Attention": ("silver", "s")}
    for gpu in sorted({r.get("gpu") or "?" for r in rows}):
        here = [r for r in rows if (r.get("gpu") or "?") == gpu]
        data = paper_series(here)
        if not any(data.values()):
            print(f"paper E.6 ({gpu}): no successful rows; nothing to plot")
            continue
        plt = _plt()
        fig, axes = _grid_figure(plt, 2, 2, f"FlashAttention paper setup (App. E.6): {gpu} "
                                 "vs the paper's A100")
        fig.set_size_inches(12, 9.5)
        titles = {"fwd": "forward (ms)", "bwd": "backward (ms)",
                  "fwd+bwd": "forward + backward (ms)", "memory": "memory, fwd+bwd (MiB / MB)"}
        for ax, section in zip(axes.flat, ("fwd", "bwd", "fwd+bwd", "memory")):
            ax.set_title(titles[section], fontsize=10)
            ours = data[section]
            for label, pts in sorted(ours.items()):
                colour, marker, line = style(label.split(" ")[0])
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, linestyle=line,
                        color=colour, label=label, markersize=5)
            for name, values in PAPER_A100[section].items():
                pts = [(n, v) for n, v in zip(PAPER_SEQ_LENS, values) if v is not None]
                colour, marker = paper_style[name]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker,
                        linestyle="--", color=colour, markerfacecolor="none",
                        label=f"paper A100: {name}", markersize=5, linewidth=1.2)
            xs = [p[0] for pts in ours.values() for p in pts] or list(PAPER_SEQ_LENS)
            _n_axis(ax, sorted(set(xs) | set(PAPER_SEQ_LENS)))
            ax.set_yscale("log")
            ax.set_xlabel("sequence length N", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(True, which="major", alpha=0.3)
            if not ours:
                ax.text(0.5, 0.9, "no measurement of ours", ha="center",
                        transform=ax.transAxes, color="gray")
        written.append(_finish(fig, axes, out_dir / f"{_gpu_slug(gpu)}-paper-e6.png",
                               note="Ours: median (do_bench); paper: mean of 100 runs, FP16, "
                                    "A100 40GB (Dao et al. 2022, Tables 9-11, 21). Paper "
                                    "memory without dropout/mask; ours with."))
    return written


# ----------------------------------------------------------------------------- command line
def main(argv: Optional[Sequence[str]] = None) -> List[Path]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.plots", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="*", help="results JSON files (default: every "
                   "benchmarks/results/*-attention.json and *-attention-cudagraph.json, or "
                   "*-paper-e6.json with --paper)")
    p.add_argument("--out-dir", default=str(DEFAULT_OUT_DIR))
    p.add_argument("--paper", action="store_true",
                   help="plot benchmarks.paper_e6 results against the paper's A100 figures")
    args = p.parse_args(argv)
    patterns = (("*-paper-e6.json",) if args.paper
                else ("*-attention.json", "*-attention-cudagraph.json"))
    paths = args.results or sorted(str(x) for pattern in patterns
                                   for x in RESULTS.glob(pattern))
    if not paths:
        sys.exit("nothing to plot: no results files given and none match "
                 + " or ".join(str(RESULTS / pattern) for pattern in patterns))
    try:
        records = load_records(paths)
    except (FileNotFoundError, ValueError) as exc:
        sys.exit(f"error: {exc}")
    if args.paper:
        from benchmarks.paper_e6 import E6_GROUP_KEY
        rows = newest_rows(records, key=E6_GROUP_KEY)
        if not rows:
            sys.exit(f"nothing to plot: {', '.join(paths)} hold no rows")
        written = plot_paper(rows, Path(args.out_dir))
    else:
        rows = newest_rows(records)
        if not rows:
            sys.exit(f"nothing to plot: {', '.join(paths)} hold no rows")
        written = plot_attention(rows, Path(args.out_dir))
    if not written:
        sys.exit(f"nothing to plot: no figure could be drawn from {', '.join(paths)}")
    for path in written:
        print(f"wrote {path}")
    return written


if __name__ == "__main__":
    main()
