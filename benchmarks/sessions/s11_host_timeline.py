"""Session 11 probe: where the host time of one ``sparseflash.attention`` fwd+bwd goes.

    python benchmarks/sessions/s11_host_timeline.py [--patterns ...] [--iters 40]

Stamps ``time.perf_counter_ns`` at the entry and exit of each layer of one call (the
public function, the autograd Function's two implementations, the two launchers, every
``JITFunction.run`` and, inside it, the compiled kernel's C launcher), on whichever thread
runs it (autograd runs a CUDA backward on its own device thread). The GPU is kept busy
ahead of the calls, so no launch waits for it and every interval is host time. Prints
the median of each interval between consecutive stamps over the calls, then the call's
host time without stamps with the garbage collector on, off, and with the warm-up's
objects frozen out of it (gc.freeze), alternating in one process.
"""

import argparse
import gc
import statistics
import time
from collections import defaultdict

import torch
import triton
from triton.runtime.jit import JITFunction

import sparseflash
from sparseflash import functional
from sparseflash.kernels import launch

STAMPS: list = []
ON = [False]


def stamp(label: str) -> None:
    if ON[0]:
        STAMPS.append((label, time.perf_counter_ns()))


def timed(fn, label: str):
    def wrapper(*args, **kwargs):
        stamp(label + " >")
        try:
            return fn(*args, **kwargs)
        finally:
            stamp(label + " <")
    return wrapper


def instrument() -> None:
    functional._forward_impl = timed(functional._forward_impl, "forward_impl")
    functional._backward_impl = timed(functional._backward_impl, "backward_impl")
    launch.forward = timed(launch.forward, "launch.forward")
    launch.backward = timed(launch.backward, "launch.backward")
    run = JITFunction.run

    def jit_run(self, *args, **kwargs):
        name = self.fn.__name__
        stamp(f"jit {name} >")
        try:
            return run(self, *args, **kwargs)
        finally:
            stamp(f"jit {name} <")
    JITFunction.run = jit_run


def instrument_compiled() -> None:
    """Stamp the C launcher of every kernel compiled so far (after the warm-up)."""
    fns = [launch._forward.tuner.fn, launch._dkdv.tuner.fn, launch._dq.tuner.fn,
           launch.merge_split_rows_kernel, launch.sum_split_rows_kernel]
    if hasattr(launch, "delta_kernel"):  # trees before v13 (session 11, call 2)
        fns.append(launch.delta_kernel)
    for fn in fns:
        for cache in fn.device_caches.values():
            for kernel in cache[0].values():
                kernel.run  # noqa: B018  (loads the module, sets _run)
                kernel._run = timed(kernel._run, f"C {fn.fn.__name__}")


def keep_busy() -> None:
    busy = torch.randn(8192, 8192, device="cuda")
    torch.cuda.synchronize()
    for _ in range(40):
        busy = busy @ busy.T * 1e-4  # ~40 ms of GPU work ahead of the launches


def host_ms(fn, iters: int) -> float:
    keep_busy()
    started = time.perf_counter()
    for _ in range(iters):
        fn()
    elapsed = time.perf_counter() - started
    torch.cuda.synchronize()
    return 1000 * elapsed / iters


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--patterns", nargs="+",
                   default=["local(3)", "local(1) | global(1) | random(2)"])
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--iters", type=int, default=40)
    args = p.parse_args()
    N, D, H = args.seq_len, args.head_dim, 16
    print(f"triton {triton.__version__}, torch {torch.__version__}, "
          f"{torch.cuda.get_device_name()}")
    q, k, v = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16).requires_grad_()
               for _ in range(3))
    grad = torch.randn_like(q)

    calls = {}
    for pattern in args.patterns:
        def fwd_bwd(pattern=pattern):
            stamp("call >")
            out = sparseflash.attention(q, k, v, pattern)
            stamp("attention <")
            torch.autograd.grad(out, (q, k, v), grad)
            stamp("grad <")
        calls[pattern] = fwd_bwd
        for _ in range(5):
            fwd_bwd()
    torch.cuda.synchronize()
    for pattern, fwd_bwd in calls.items():  # plain host time, before any stamp exists
        print(f"{pattern!r}: fwd+bwd host time {host_ms(fwd_bwd, args.iters):.3f} ms "
              "(uninstrumented)")

    instrument()
    instrument_compiled()
    for pattern, fwd_bwd in calls.items():
        intervals = defaultdict(list)
        for _ in range(3):
            keep_busy()
            for _ in range(args.iters):
                STAMPS.clear()
                ON[0] = True
                fwd_bwd()
                ON[0] = False
                for i, ((a, ta), (b, tb)) in enumerate(zip(STAMPS, STAMPS[1:])):
                    intervals[(i, a, b)].append((tb - ta) / 1000)
            torch.cuda.synchronize()
        total = sum(statistics.median(x) for x in intervals.values())
        print(f"\n{pattern!r}, N={N}, D={D}: median us between consecutive stamps "
              f"(sum of medians {total:.1f} us)")
        for (i, a, b), xs in sorted(intervals.items()):
            print(f"  {statistics.median(xs):8.1f}  {a:38s} -> {b}")

    # The garbage collector: on, off, and on with the warm-up's objects frozen.
    ON[0] = False
    print("\nuninstrumented-equivalent host time per fwd+bwd (stamps off but wrappers in "
          "place), ms, 4 rounds:")
    for pattern, fwd_bwd in calls.items():
        res = defaultdict(list)
        for _ in range(4):
            gc.enable()
            res["gc on"].append(host_ms(fwd_bwd, args.iters))
            gc.disable()
            res["gc off"].append(host_ms(fwd_bwd, args.iters))
            gc.enable()
            gc.freeze()
            res["gc on, frozen"].append(host_ms(fwd_bwd, args.iters))
            gc.unfreeze()
        print(f"  {pattern!r}: " + ", ".join(
            f"{name} {statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"
            for name, xs in res.items()))
    print(f"gc thresholds {gc.get_threshold()}, tracked objects {len(gc.get_objects())}")


if __name__ == "__main__":
    main()
