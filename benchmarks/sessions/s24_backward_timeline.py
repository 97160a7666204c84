"""Session 24: where a short fwd+bwd's host time goes between the autograd engine and the
library, in place (v20's timeline was taken on the session-17 tree).

    python benchmarks/sessions/s24_backward_timeline.py [--head-dim 64] [--iters 60]

``benchmarks.overhead`` on an H200 (call 4) gave 0.72 ms of host time per ``local(3)``
D=64 fwd+bwd, of which the forward 0.13 ms, the launchers called directly 0.08 + 0.17 ms
and an autograd Function that does nothing 0.10 ms: ~0.3 ms unaccounted for. This stamps
(``time.perf_counter``) the main thread around ``attention()`` and ``torch.autograd.grad``,
and the device thread at the entry and exit of ``_Attention.backward`` and of
``launch.backward`` within it, with the GPU kept busy (a long matmul queue) so that no
launch waits on it, and prints the median of each interval in us.
"""

import statistics
import sys
import time

import torch

import sparseflash
from sparseflash import functional
from sparseflash.kernels import launch

STAMPS = {}


def _stamp(name):
    STAMPS[name] = time.perf_counter()


def main():
    d = int(sys.argv[sys.argv.index("--head-dim") + 1]) if "--head-dim" in sys.argv else 64
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 60
    B, H, N = 1, 16, 16384
    q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16).requires_grad_()
               for _ in range(3))
    grad = torch.randn_like(q)
    layout = sparseflash.compile_layout("local(3)", N, block=128, device=q.device)

    inner_backward = functional._Attention.backward
    inner_launch = launch.backward

    def stamped_backward(ctx, do, dlse):
        _stamp("bwd_in")
        out = inner_backward(ctx, do, dlse)
        _stamp("bwd_out")
        return out

    def stamped_launch(*args, **kwargs):
        _stamp("launch_in")
        out = inner_launch(*args, **kwargs)
        _stamp("launch_out")
        return out

    functional._Attention.backward = staticmethod(stamped_backward)
    launch.backward = stamped_launch

    def step():
        _stamp("call")
        o = sparseflash.attention(q, k, v, layout)
        _stamp("fwd_done")
        torch.autograd.grad(o, (q, k, v), grad)
        _stamp("grad_done")

    for _ in range(10):
        step()
    torch.cuda.synchronize()
    intervals = {name: [] for name in ("forward (attention())", "grad() -> backward entry",
                                       "backward body before launch.backward",
                                       "launch.backward", "backward body after launch.backward",
                                       "backward exit -> grad() returns", "whole fwd+bwd")}
    busy = torch.randn(8192, 8192, device="cuda")
    for rnd in range(3):
        torch.cuda.synchronize()
        for _ in range(30):
            busy = busy @ busy.T * 1e-4  # ~30 ms of GPU work ahead of the launches
        for _ in range(iters // 3):
            step()
            s = STAMPS
            for name, (a, b) in zip(intervals, [("call", "fwd_done"), ("fwd_done", "bwd_in"),
                                                ("bwd_in", "launch_in"),
                                                ("launch_in", "launch_out"),
                                                ("launch_out", "bwd_out"),
                                                ("bwd_out", "grad_done"),
                                                ("call", "grad_done")]):
                intervals[name].append(1e6 * (s[b] - s[a]))
    torch.cuda.synchronize()
    print(f"local(3) N={N} D={d} H={H} bf16, {iters} calls, GPU kept busy; median us "
          f"(min - max):")
    for name, values in intervals.items():
        print(f"  {name:40s} {statistics.median(values):8.1f}  "
              f"({min(values):.1f} - {max(values):.1f})")


if __name__ == "__main__":
    main()
