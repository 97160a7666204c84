"""Session 59 (prepared, not run: the session's device time was spent; session 60 got
no machine): the fused backward's column order, built (longest first) against the
orders that ``s59_l2_model.py`` says keep more query tiles in L2.

    PYTHONPATH=. python benchmarks/sessions/s59_column_order_ab.py [--rounds 2]

Why. On the H100, `local(1) | random(2)` at D=128 and 64K tokens (B = 1, 16 heads) took
3.095 ms of backward by difference where its 16K rate predicts 2.497 (call 3); at D=64
the same scaling lost 3%, and `local(3)` and `butterfly` nothing. ``s59_l2_model.py``
puts the share of column visits whose query tile (Q, dO and dQ's float32 sum, 128 KB at
D=128) is not in a 50 MB LRU cache at 37.0% for the built order against 20.1% that no
order avoids (each tile's first visit in a head), and at 27.9-30.9% for the orders below,
at a makespan 0.2-0.9% longer (in the model's equal steps).

What. The same layout's tables with the column schedule (``q_schedule``) built in
another order (``schedule.build_schedule``'s ``order``, session 60: the model's orders,
entry for entry but for the chunks within a split column), so that the grid takes the
same entries in another order: nothing else in the tables or the kernels changes (split
columns keep their slots). Orders: ``natural``, ``classes``, ``long first``. Each
order's dQ, dK and dV are compared with the built order's (dQ's float32 sums are added
in another order, so they may differ by rounding) and its ``launch.backward`` timed from
a CUDA graph (do_bench, L2 flushed before each replay), the orders alternating
A B C D D C B A in each round.

A per-head layout's schedule holds all heads' columns, and its grid runs them in one
order, so that longest first mixes the heads: the model puts a per-head
`local(1) | random(2, seed)` (four seeds over 16 heads) at 16K at 68.4% missed visits
(D=128; 65.8% at D=64) for the built order against 20.2% for ``natural`` (makespan +4.6%),
28.0% for ``long first`` (+2.7%) and 35.2% for ``classes`` (+0.0%).

Prediction. The per-head layout at 16K: the backward at least 5% faster with ``long
first`` or ``classes`` at both head dims (its misses above the first visits fall from 48
points to 8-15), by at most what separates it from the broadcast `local(1) | random(2)`
of the same shape (a case of this run).
`local(1) | random(2)` and `bigbird` at D=128, 64K: the backward 0-8% faster
with ``natural`` or ``long first`` (8% if the 0.60 ms over the 16K rate scales with the
misses above the first visits, 16.9 points for the built order against 7.8-9.8; nothing
if something else costs it: `butterfly`'s 8.2 points cost nothing measurable); at 16K and
at D=64, where the model's misses do not depend on the order, within +-1% (the longer
tail).
"""

import argparse
from typing import Dict, List

import torch

import sparseflash
from benchmarks.sessions import ab
from benchmarks.sessions.s59_l2_model import HEADS, PER_HEAD
from sparseflash.kernels import launch
from sparseflash.layout.layout import Layout
from sparseflash.layout.schedule import ORDERS, build_schedule

Q_SCHEDULE = Layout._KERNEL_TABLES.index("q_schedule")
CASES = [  # (pattern, N, D); B = 1, 16 heads
    (PER_HEAD, 16384, 128),
    (PER_HEAD, 16384, 64),
    ("local(1) | random(2)", 65536, 128),
    ("bigbird", 65536, 128),
    ("local(1) | global(1) | random(2)", 65536, 128),
    ("local(1) | random(2)", 65536, 64),
    ("local(1) | random(2)", 16384, 128),
    ("local(3)", 65536, 128),  # control: every order is the built one
]


def ordered_tables(layout, order: str) -> List[torch.Tensor]:
    """The layout's kernel tables with the column schedule built in ``order``
    (``schedule.program_order``): the same entries, in another order."""
    tables = list(layout.kernel_tables())
    entries = build_schedule(layout._build("full_q_offsets", cpu=True),
                             layout._build("partial_q_offsets", cpu=True), order=order).entries
    tables[Q_SCHEDULE] = entries.to(tables[Q_SCHEDULE].device)
    return tables


def run_case(pattern: str, N: int, D: int, rounds: int) -> None:
    layout = sparseflash.compile_layout(pattern, N, block=128, num_heads=HEADS,
                                        device="cuda")
    variants: Dict[str, List[torch.Tensor]] = {}
    for name in ORDERS:  # "longest", the built order, first
        tables = ordered_tables(layout, name)
        if variants and torch.equal(tables[Q_SCHEDULE], variants["longest"][Q_SCHEDULE]):
            print(f"{pattern[:40]!r} N={N} D={D}: {name} is the built order")
            continue
        variants[name] = tables
    q, k, v, do = ab._inputs(1, HEADS, N, D)
    meta, scale = launch.LayoutMeta.of(layout), D ** -0.5
    o, lse = launch.forward(q, k, v, layout.kernel_tables(), meta, scale, None, None, None,
                            0.0)

    def backward(tables):
        return launch.backward(do, q, k, v, o, lse, tables, meta, scale, None, None, None,
                               0.0)

    reference = backward(variants["longest"])
    for name, tables in variants.items():
        grads = backward(tables)
        errors = ", ".join(f"{g} {ab._relative_error(a, b):.2e}"
                           for g, a, b in zip(("dq", "dk", "dv"), grads, reference))
        print(f"{pattern[:40]!r} N={N} D={D} {name}: against the built order {errors}")
    names = list(variants)
    times: Dict[str, List[float]] = {name: [] for name in names}
    for _ in range(rounds):
        for name in names + names[::-1]:
            times[name].append(ab._graph_bench(lambda t=variants[name]: backward(t)))
    base = min(times[names[0]])
    for name in names:
        best = min(times[name])
        runs = " ".join(f"{t:.3f}" for t in times[name])
        print(f"{pattern[:40]!r} N={N} D={D} {name:22s} backward ms {runs}; best {best:.3f} "
              f"({100 * (base / best - 1):+.1f}% faster than built)")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    for pattern, N, D in CASES:
        run_case(pattern, N, D, args.rounds)


if __name__ == "__main__":
    main()
