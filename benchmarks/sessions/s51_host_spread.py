"""Session 51: why a short eager call's host time varies 2x within one process.

Call 4 (``s51_cold_l2.py``) timed the host's part of one call, with the GPU kept busy, at
0.094-0.287 ms for a forward and 0.437-1.031 ms for a fwd+bwd from round to round of one
process. Guesses, each with a variant that would remove it:

- Python's garbage collector: an autograd fwd+bwd makes and drops many Python objects,
  and a collection of the older generations can take a millisecond (``gc.disable()``,
  and ``gc.freeze()``, which moves what exists to a generation never collected);
- the backward on the autograd engine's device thread, whose hand-offs vary with how the
  OS schedules two threads (``torch.autograd.set_multithreading_enabled(False)``, v51).

What. sparseflash's and SDPA's flash backend's dense D=64 fwd+bwd at N = 1024, 16
sequences, 16 heads, bf16 (``s50_host_profile.short_steps``). Each round times 20 calls one
by one (the GPU kept busy, so no call waits for it) and counts the garbage collections
that ran during them; the variants alternate within each round. Per variant: the median
call, the 90th percentile and the slowest; the rounds' means, lowest and highest; and
the collections of generations 1 and 2.

    PYTHONPATH=. python benchmarks/sessions/s51_host_spread.py --rounds 20

Result (call 5, log ``benchmarks/results/NVIDIA-H200-host-spread-s51-call5.log``): neither
guess explains the spread. Host ms of one fwd+bwd, median / 90th percentile / slowest, then
the lowest and highest round mean:

| | default | gc off | gc frozen | one thread |
|---|---|---|---|---|
| sparseflash | 0.606 / 0.888 / 1.576; 0.558-0.867 | 0.564 / 0.968 / 1.640; 0.421-0.819 | 0.609 / 0.923 / 2.662; 0.441-0.848 | 0.344 / 0.517 / 1.035; 0.280-0.555 |
| SDPA flash | 0.184 / 0.344 / 0.849; 0.177-0.320 | 0.196 / 0.368 / 1.018; 0.180-0.360 | 0.193 / 0.503 / 1.062; 0.199-0.432 | 0.118 / 0.207 / 0.587; 0.118-0.220 |

- No collection of generation 1 or 2 ran during any timed call. Only 10 of generation 0
  ran in sparseflash's 400 default calls, and with the collector off or frozen the spread
  is the same.
- The backward on the calling thread halves the median again (0.344 against 0.606 ms; v51),
  but its rounds still range 2x.
- SDPA's calls, with a third of the Python, spread as much: p90 1.9x the median.
- So the spread is the host's, not something a sparseflash call does. It is what the
  do_bench table's stars record.
"""

import argparse
import contextlib
import gc
import statistics
import time

import torch
import torch.nn.attention

from benchmarks.overhead import _busy_gpu
from benchmarks.sessions.s50_host_profile import FLASH, short_steps

CALLS = 20  # a round's calls: ~12 ms of host time, inside the ~20 ms the GPU is kept busy


@contextlib.contextmanager
def _variant(name: str):
    """Run the body with variant ``name`` of the process's settings, then restore them."""
    if name == "gc off":
        gc.disable()
    elif name == "gc frozen":
        gc.collect()
        gc.freeze()
    with (torch.autograd.set_multithreading_enabled(False) if name == "one thread"
          else contextlib.nullcontext()):
        try:
            yield
        finally:
            gc.enable()
            gc.unfreeze()


def _round(step) -> tuple:
    """(host ms of each of CALLS calls, collections of generations (0, 1, 2) during them)."""
    collections = [0, 0, 0]

    def count(phase, info):
        if phase == "start":
            collections[info["generation"]] += 1

    busy = _busy_gpu()  # held until the calls are timed
    gc.callbacks.append(count)
    times = []
    try:
        for _ in range(CALLS):
            started = time.perf_counter()
            step()
            times.append(1000 * (time.perf_counter() - started))
    finally:
        gc.callbacks.remove(count)
    torch.cuda.synchronize()
    del busy
    return times, collections


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    variants = ("default", "gc off", "gc frozen", "one thread")
    print(f"{torch.cuda.get_device_name()}; host ms of one fwd+bwd, {CALLS} calls a round")
    print(f"{'method':12} {'variant':11} {'median':>7} {'p90':>7} {'max':>7} "
          f"{'round lo':>8} {'round hi':>8}  collections (gen 0, 1, 2)")
    with torch.nn.attention.sdpa_kernel(FLASH):
        for method, step in short_steps().items():
            calls = {v: [] for v in variants}
            means = {v: [] for v in variants}
            gcs = {v: [0, 0, 0] for v in variants}
            for r in range(args.rounds):
                order = variants if r % 2 == 0 else variants[::-1]
                for v in order:
                    with _variant(v):
                        times, collections = _round(step)
                    calls[v] += times
                    means[v].append(statistics.mean(times))
                    gcs[v] = [a + b for a, b in zip(gcs[v], collections)]
            for v in variants:
                ordered = sorted(calls[v])
                p90 = ordered[int(0.9 * (len(ordered) - 1))]
                print(f"{method:12} {v:11} {statistics.median(ordered):7.3f} {p90:7.3f} "
                      f"{ordered[-1]:7.3f} {min(means[v]):8.3f} {max(means[v]):8.3f}  "
                      f"{tuple(gcs[v])}", flush=True)


if __name__ == "__main__":
    main()
