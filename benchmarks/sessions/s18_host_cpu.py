"""Session 18 probe: the host path of ``sparseflash.attention`` measured without a GPU.

    python benchmarks/sessions/s18_host_cpu.py [--profile] [--head-dim 64]

Every kernel launch goes to a stand-in compiled kernel whose C launcher does nothing, on
CPU tensors, with the GPU-only decisions (Gluon forward and dK/dV where an H200 would take
them) pinned: what is left is sparseflash's own Python per call (the front end, the
autograd Function, the launchers, fastlaunch's signature lookup, descriptor building),
the part a short GPU call waits for. Autograd runs this backward on the calling thread
(a GPU backward runs on the engine's device thread), and Triton's own launcher Python
(``CudaLauncher.__call__``, descriptor encoding) is not included.
"""

import argparse
import cProfile
import io
import pstats
import statistics
import time

import torch
import triton

import sparseflash
from sparseflash import functional
from sparseflash.kernels import fastlaunch, hopper, hopper_backward, launch


class FakeCompiled:
    function, packed_metadata = "cu-function", "packed-metadata"

    @staticmethod
    def run(*args):
        return None


class FakeJit:
    def __init__(self, fn):
        self.fn = getattr(fn, "fn", fn)
        self.compiled = FakeCompiled()

    def run(self, *args, grid, warmup, **kwargs):
        return self.compiled


def stand_in_kernels() -> None:
    fastlaunch.direct_launch_enabled = lambda: True
    fastlaunch._current_device = lambda: 0
    fastlaunch._current_stream = lambda device: 0
    fastlaunch._launch_hooks_set = lambda: False
    for kernel in (launch._forward, launch._dkdv, launch._dq, launch._merge, launch._sum_split,
                   hopper._KERNEL, hopper_backward._KERNEL):
        kernel.fn = FakeJit(kernel.fn)
        tile = (triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4)
                if kernel.tuner is not None else None)
        kernel._config = lambda *args, tile=tile: (tile, False)
    # What an H200 decides for these inputs (module docstrings of hopper, hopper_backward).
    hopper.usable = lambda q, k, v, block, p, pad, partial: not (q.shape[-1] == 128 and partial)
    hopper_backward.usable = lambda q, k, v, do, block, p, pad, sched: q.shape[-1] == 128
    functional._pick_backend = lambda backend, device: "triton"


def per_call_us(fn, iters: int) -> float:
    started = time.perf_counter_ns()
    for _ in range(iters):
        fn()
    return (time.perf_counter_ns() - started) / iters / 1000


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--patterns", nargs="+",
                   default=["local(3)", "local(1) | global(1) | random(2)"])
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--iters", type=int, default=2000)
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    stand_in_kernels()
    N, D, H = args.seq_len, args.head_dim, 16
    q, k, v = (torch.randn(1, H, N, D, dtype=torch.bfloat16).requires_grad_()
               for _ in range(3))
    grad = torch.randn_like(q)
    for pattern in args.patterns:
        def forward():
            return sparseflash.attention(q, k, v, pattern)

        def forward_backward():
            torch.autograd.grad(forward(), (q, k, v), grad)

        for _ in range(20):
            forward_backward()
        rounds = {"fwd": [], "fwd+bwd": []}
        for _ in range(5):
            rounds["fwd"].append(per_call_us(forward, args.iters))
            rounds["fwd+bwd"].append(per_call_us(forward_backward, args.iters))
        print(f"{pattern!r} D={D}: " + ", ".join(
            f"{mode} {statistics.median(xs):.1f} us" for mode, xs in rounds.items()))
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(args.iters):
                forward_backward()
            profiler.disable()
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(35)
            print(text.getvalue())


if __name__ == "__main__":
    main()
