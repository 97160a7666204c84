"""Host (CPU) time of one attention call, and where it goes.

    python -m benchmarks.overhead --pattern "local(3)" --seq-len 16384 --head-dim 64

A short sparse call has less GPU work than the host needs to launch it: then
``do_bench`` measures the host, not the kernels (``benchmarks.profile_call`` gives the
kernels' own time). This prints the host time per forward and per forward + backward
(enqueue only, measured with the GPU kept busy so that the host never waits on it), then a
cProfile of the forward + backward loop, heaviest functions first.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

import torch

import sparseflash
from benchmarks.profile_call import add_call_arguments, make_call


def _busy_gpu() -> torch.Tensor:
    """Queue ~20 ms of GPU work (long matmuls), so that launches after it queue without
    waiting for the GPU."""
    busy = torch.randn(8192, 8192, device="cuda")
    torch.cuda.synchronize()
    for _ in range(20):
        busy = busy @ busy.T * 1e-4  # ~20 x 1 ms of GPU work ahead of the launches
    return busy


def _host_ms(fn, iters: int) -> float:
    """Mean host time of ``fn`` in ms, the GPU kept busy (:func:`_busy_gpu`) so that
    launches queue without waiting; ``iters`` is kept below the launch queue's depth."""
    busy = _busy_gpu()  # held until the launches are timed
    started = time.perf_counter()
    for _ in range(iters):
        fn()
    elapsed = time.perf_counter() - started
    torch.cuda.synchronize()
    return 1000 * elapsed / iters


class _Identity(torch.autograd.Function):
    """No GPU work in either direction: its fwd+bwd host time is the autograd engine's."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_call_arguments(p, pattern="local(3)", seq_len=16384)
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--top", type=int, default=30, help="cProfile rows to print")
    args = p.parse_args(argv)
    call = make_call(args, "this measurement")
    q, k, v, grad, N, D, B = call.q, call.k, call.v, call.grad, call.N, call.D, call.B
    forward, forward_backward = call.forward, call.forward_backward

    for _ in range(5):
        forward_backward()
    torch.cuda.synchronize()
    fwd = _host_ms(forward, args.iters)
    both = _host_ms(forward_backward, args.iters)
    print(f"{args.pattern!r} N={N} D={D} B={B} H={args.heads}: host time per call "
          f"fwd {fwd:.3f} ms, fwd+bwd {both:.3f} ms")
    # The launchers alone, without attention()'s checks or autograd.
    from sparseflash.kernels import launch
    layout = sparseflash.compile_layout(args.pattern, N, block=args.block, device=q.device)
    tables, meta, scale = layout.kernel_tables(), launch.LayoutMeta.of(layout), D ** -0.5
    with torch.no_grad():
        # Without padding or dropout: with --max-pad/--dropout these are other kernel
        # specialisations, so warm both launchers (compile, autotune) before timing.
        o, lse = launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)
        launch.backward(grad, q, k, v, o, lse, tables, meta, scale, None, None, 0, 0.0)
        torch.cuda.synchronize()
        launch_fwd = _host_ms(
            lambda: launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0), args.iters)
        launch_bwd = _host_ms(
            lambda: launch.backward(grad, q, k, v, o, lse, tables, meta, scale, None, None, 0,
                                    0.0), args.iters)
    print(f"launchers alone (no padding, no dropout): forward {launch_fwd:.3f} ms, "
          f"backward {launch_bwd:.3f} ms")
    # What any autograd attention pays on this host: the engine around a backward that
    # does nothing. (SDPA is no comparison here: its fwd+bwd waits for the GPU, so its host
    # time cannot be taken apart from the GPU's this way.)
    empty = _host_ms(lambda: torch.autograd.grad(_Identity.apply(q), (q,), grad), args.iters)
    print(f"for comparison: an autograd Function that does nothing, fwd+bwd {empty:.3f} ms")
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.iters):
        forward_backward()
    profiler.disable()
    torch.cuda.synchronize()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(args.top)
    print(text.getvalue())


if __name__ == "__main__":
    main()
