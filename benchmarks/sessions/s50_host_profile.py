"""Session 50: where the host's time goes in a short eager fwd+bwd, by torch.profiler's
CPU events: sparseflash's dense D=64 call at N = 1024 (16 sequences, 16 heads, bf16),
beside SDPA's flash backend on the same inputs.

    python benchmarks/sessions/s50_host_profile.py [--iters 50]

Why. Call 3 (``python -m benchmarks.overhead``) put this call's host time at 0.58 ms a
fwd+bwd, of which the launchers take 0.21 ms and an autograd Function that does nothing
0.085 ms: ~0.3 ms is neither, and cProfile (the main thread's Python) puts it inside
``run_backward`` and ``Function.apply``. The profiler's CPU events name the C++ side
(the autograd engine's per-node work, allocations, the launches) with self times.

What. A long matmul keeps the GPU busy so that no call waits for it; then ``--iters``
fwd+bwd calls under ``torch.profiler`` (CPU activity only), and the events' table by
self CPU time, for each method.

Result (call 8, ``s50-call8.sh``, log ``results/NVIDIA-H200-host-profile-s50-call8.log``):
0.575 ms a sparseflash fwd+bwd, of which the Python of its autograd Function 0.216 ms
(forward) and 0.241 (backward) of self time, the four launches 0.034, allocations ~0.05;
SDPA's flash backend 0.302 ms under the profiler. Our Python ran about twice as slow as
the same launchers alone in a loop; ``s50_host_threads.py`` tests why (NOTES v51).
"""

import argparse

import torch
import torch.nn.attention
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

import sparseflash
from benchmarks.overhead import _busy_gpu


#: The short call measured: (B, H, N, D), bf16; SDPA's backend for the comparison.
SHAPE = (16, 16, 1024, 64)
FLASH = torch.nn.attention.SDPBackend.FLASH_ATTENTION


def short_steps():
    """{method: a fwd+bwd step} on one set of random inputs of :data:`SHAPE`, each step
    warmed up (compiled, tuned) under SDPA's flash backend; run them under it too."""
    B, H, N, D = SHAPE
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True) for _ in range(3))
    grad = torch.randn_like(q)
    forwards = {
        "sparseflash": lambda: sparseflash.attention(q, k, v, "dense"),
        "sdpa-flash": lambda: F.scaled_dot_product_attention(q, k, v),
    }
    steps = {name: (lambda f=f: torch.autograd.grad(f(), (q, k, v), grad))
             for name, f in forwards.items()}
    with torch.nn.attention.sdpa_kernel(FLASH):
        for step in steps.values():
            for _ in range(10):
                step()
    torch.cuda.synchronize()
    return steps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=50)
    args = parser.parse_args()
    B, H, N, D = SHAPE
    for name, step in short_steps().items():
        with torch.nn.attention.sdpa_kernel(FLASH):
            busy = _busy_gpu()  # held while the calls are profiled
            with profile(activities=[ProfilerActivity.CPU]) as prof:
                for _ in range(args.iters):
                    step()
            torch.cuda.synchronize()
        print(f"== {name}: {args.iters} fwd+bwd calls, B={B} H={H} N={N} D={D} bf16", flush=True)
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=30),
              flush=True)


if __name__ == "__main__":
    main()
