"""Session 53: ``hopper_chain``'s persistent D=64 forward (each program's next row loaded
under the end of its current one) against ``hopper``'s own kernel, and this tree's own
kernel (its row walk now ``hopper._row_scores``, shared with the chained one) against the
tree before.

    PYTHONPATH=. python benchmarks/sessions/s53_chain_ab.py OLD_TREE [--rounds 2]

(``hopper_chain`` is not on main: run this on commit 1160f85 with
``sessions/s53_chain.patch`` applied, as calls 1 and 2 ran it.)

Variants, in one process: ``old`` (the tree before, its own kernel), ``own`` (this tree,
``SPARSEFLASH_CHAIN=0``), ``ring`` and ``pointer`` (``SPARSEFLASH_CHAIN=1``, the O store
through the last tile's V buffer by TMA, or by the threads' pointer stores).

Why. The clock trace of NOTES v53: a 3-tile ``local(1)`` program spends ~4,600 of its
~16,000 cycles from its start to its first scores (prologue ~1,000 after v53's change,
then the copies' latency) and ~2,500 after its last ``P V``; the SM's other program hides
part of that. A persistent program issues its next row's Q and first two K/V tiles as
soon as its last scores are done, so they land under the last ``P V``, the
normalisation and the store.

Prediction: ``local(1)`` 5-12% faster, ``local(3)``, ``butterfly`` and ``chunk(8)``
2-6%; dense and ``causal`` (forced; the default takes the chained kernel only for rows
of at most 8 tiles) within 2% either way, the static dealing costing ``causal``'s
unequal rows; ``ring`` a little faster than ``pointer``; ``own`` even with ``old``.
Outputs: the chained variants the same as ``own`` up to the order of nothing (each row's
arithmetic is the same), so bit for bit.

Result (call 1, log ``benchmarks/results/NVIDIA-H200-chain-ab-s53-call1.log``; best of
two, ms, old / own / ring / pointer, the last two against old): ``local(1)`` 0.077 / 0.077
/ 0.078 / 0.089 (-1.1% / -13.0%), ``local(3)`` 0.142 / 0.140 / 0.148 / 0.158, ``butterfly``
0.162 / 0.162 / 0.178 / 0.184, ``chunk(8)`` 0.160 / 0.157 / 0.164 / 0.175, random+global
0.156 / 0.156 / 0.166 / 0.171, dense 2.276 / 2.235 / 2.342 / 2.365, ``causal`` 1.213 /
1.205 / 2.034 / 1.887; B=4, N=4K ``local(1)`` -0.9% / -12.7%, ``butterfly`` -8.8% /
-13.1%, dense -3.7% / -5.8%. ``own`` against ``old``: -0.2% to +1.8%. Outputs bit for bit
the same throughout. Call 2 (``--pv-first``, log ``...-chain-ab-s53-call2.log``), against
``own``: ``ring`` 1.6-9.4% slower, ``ring-pv-first`` 1.2-8.7%. Refuted; not kept (NOTES v54; the kernel is
``sessions/s53_chain.patch``, which applies to commit 1160f85, where this script's
variants run).
"""

import os

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_chain


def chained(o_in_ring, pv_first=False):
    """A variant's setup: the chained forward on, its O store by TMA through the ring or
    by pointers, its last ``P V`` before the following item's start or after it."""
    def setup():
        os.environ["SPARSEFLASH_CHAIN"] = "1"
        hopper_chain.O_IN_RING = o_in_ring
        hopper_chain.PV_FIRST = pv_first
    return setup


def own():
    os.environ["SPARSEFLASH_CHAIN"] = "0"


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("old_tree", nargs="?")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--pv-first", action="store_true",
                        help="call 2: own, ring, ring with PV_FIRST (no old tree, no pointer)")
    args = parser.parse_args()
    launch = ab.kernels_of(None)
    if args.pv_first:
        variants = {"own": (launch, own), "ring": (launch, chained(True)),
                    "ring-pv-first": (launch, chained(True, True))}
        short = ("local(1)", "local(3)", "butterfly", "chunk(8)",
                 "local(1) | global(1) | random(2)")
        shapes = {(1, 16, 16384): [(64, p, 0.0) for p in short],
                  (4, 16, 4096): [(64, "local(1)", 0.0), (64, "butterfly", 0.0)]}
    else:
        variants = {"old": (ab.kernels_of(args.old_tree, "old"), own), "own": (launch, own),
                    "ring": (launch, chained(True)), "pointer": (launch, chained(False))}
        long_cases = [(64, p, 0.0) for p in ("local(1)", "local(3)", "butterfly", "chunk(8)",
                                             "local(1) | global(1) | random(2)", "dense",
                                             "causal")]
        shapes = {(1, 16, 16384): long_cases,
                  (4, 16, 4096): [(64, "local(1)", 0.0), (64, "butterfly", 0.0),
                                  (64, "dense", 0.0)]}
    for (B, H, N), cases in shapes.items():
        print(f"B={B} H={H} N={N}", flush=True)
        ab.forward_ab(variants, cases, rounds=args.rounds, B=B, H=H, N=N)
